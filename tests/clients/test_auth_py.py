"""supabase-py (supabase_auth), unmodified, does the core auth flow against the server."""

from __future__ import annotations

import uuid

import httpx
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from tests import harness


def email() -> str:
    return f"py-{uuid.uuid4().hex[:10]}@example.com"


def latest_otp(server: harness.LiveServer, address: str) -> str:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": address}).json()["messages"]
    return messages[0]["OTP"]


def test_core_flow(live_server: harness.LiveServer) -> None:
    supabase = create_client(live_server.url, live_server.anon_key)
    address = email()
    signed_up = supabase.auth.sign_up({"email": address, "password": "py-password",
                                       "options": {"data": {"full_name": "Py Thon"}}})
    assert signed_up.user.user_metadata["full_name"] == "Py Thon"
    assert signed_up.session is not None
    supabase.auth.sign_out()
    with pytest.raises(AuthApiError) as wrong:
        supabase.auth.sign_in_with_password({"email": address, "password": "bad-password"})
    assert wrong.value.code == "invalid_credentials"
    session = supabase.auth.sign_in_with_password({"email": address, "password": "py-password"}).session
    assert supabase.auth.get_user().user.email == address
    refreshed = supabase.auth.refresh_session()
    assert refreshed.session.refresh_token != session.refresh_token
    supabase.auth.update_user({"password": "py-password-2", "data": {"city": "Lyon"}})
    assert supabase.auth.get_user().user.user_metadata["city"] == "Lyon"
    supabase.auth.sign_out()
    assert supabase.auth.get_session() is None

    supabase.auth.reset_password_for_email(address)
    verified = supabase.auth.verify_otp({"email": address, "token": latest_otp(live_server, address), "type": "recovery"})
    assert verified.user.email == address


def test_admin_api(live_server: harness.LiveServer) -> None:
    admin = create_client(live_server.url, live_server.service_key).auth.admin
    address = email()
    user = admin.create_user({"email": address, "password": "py-password", "email_confirm": True}).user
    assert admin.get_user_by_id(user.id).user.email == address
    assert any(u.id == user.id for u in admin.list_users(page=1, per_page=1000))
    admin.delete_user(user.id)
    with pytest.raises(AuthApiError) as missing:
        admin.get_user_by_id(user.id)
    assert missing.value.status == 404
