"""supabase-py (supabase_auth), unmodified, against GoTrue's settings: weak_password reasons,
mail confirmation by code, reauthenticate() and update_user with the nonce."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError, AuthWeakPasswordError

from tests import harness
from tests.auth.conftest import auth_server

STRONG = "Strong-pass-42"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_PASSWORD_MIN_LENGTH": "10",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
    }) as server:
        yield server


def address() -> str:
    return f"py-settings-{uuid.uuid4().hex[:10]}@example.com"


def latest_otp(server: harness.LiveServer, email: str) -> str:
    return str(httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"][0]["OTP"])


def test_weak_password_reasons(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key)
    with pytest.raises(AuthWeakPasswordError) as weak:
        supabase.auth.sign_up({"email": address(), "password": "short"})
    assert weak.value.reasons == ["length", "characters"] and weak.value.status == 422


def test_confirmation_then_secure_password_change(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key)
    email = address()
    signed_up = supabase.auth.sign_up({"email": email, "password": STRONG})
    assert signed_up.session is None and signed_up.user.email == email
    with pytest.raises(AuthApiError) as early:
        supabase.auth.sign_in_with_password({"email": email, "password": STRONG})
    assert early.value.code == "email_not_confirmed"
    verified = supabase.auth.verify_otp({"email": email, "token": latest_otp(server, email), "type": "signup"})
    assert verified.session is not None
    with psycopg.connect(server.database_url, autocommit=True) as conn:  # as if signed in yesterday
        conn.execute("update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s",
                     [verified.user.id])
    with pytest.raises(AuthApiError) as needed:
        supabase.auth.update_user({"password": "Second-pass-42"})
    assert needed.value.code == "reauthentication_needed"
    supabase.auth.reauthenticate()
    supabase.auth.update_user({"password": "Second-pass-42", "nonce": latest_otp(server, email)})
    assert create_client(server.url, server.anon_key).auth.sign_in_with_password(
        {"email": email, "password": "Second-pass-42"}).session is not None
