"""supabase-py (supabase_auth), unmodified: admin.invite_user_by_email and accepting the invite,
generate_link({type: invite}), and admin.oauth.* on a server with the OAuth 2.1 server on."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError
from supabase_auth.types import PageParams

from tests import harness
from tests.auth.conftest import auth_server


def email() -> str:
    return f"py-admin-{uuid.uuid4().hex[:10]}@example.com"


def latest_mail(server: harness.LiveServer, address: str) -> dict:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": address, "limit": 1}).json()["messages"]
    assert messages, f"no mail for {address}"
    return messages[0]


def test_invite_user_by_email_and_accept(live_server: harness.LiveServer) -> None:
    admin = create_client(live_server.url, live_server.service_key).auth.admin
    address = email()
    invited = admin.invite_user_by_email(address, {"data": {"cohort": "2025"}, "redirect_to": f"{live_server.url}/hi"})
    assert invited.user.email == address and invited.user.invited_at is not None
    assert invited.user.user_metadata == {"cohort": "2025"}
    mail = latest_mail(live_server, address)
    assert mail["Kind"] == "invite" and "redirect_to=" in mail["Link"]

    supabase = create_client(live_server.url, live_server.anon_key)
    verified = supabase.auth.verify_otp({"email": address, "token": mail["OTP"], "type": "invite"})
    assert verified.user.email == address and verified.user.email_confirmed_at is not None
    assert verified.session is not None
    supabase.auth.update_user({"password": "py-invited-password"})
    supabase.auth.sign_out()
    assert supabase.auth.sign_in_with_password({"email": address, "password": "py-invited-password"}).user.id == invited.user.id

    with pytest.raises(AuthApiError) as taken:
        admin.invite_user_by_email(address)
    assert taken.value.status == 422 and taken.value.code == "email_exists"


def test_generate_link_invite(live_server: harness.LiveServer) -> None:
    admin = create_client(live_server.url, live_server.service_key).auth.admin
    address = email()
    link = admin.generate_link({"type": "invite", "email": address, "options": {"data": {"via": "py"}}})
    assert link.properties.verification_type == "invite" and link.user.invited_at is not None
    assert link.user.user_metadata == {"via": "py"}
    supabase = create_client(live_server.url, live_server.anon_key)
    verified = supabase.auth.verify_otp({"token_hash": link.properties.hashed_token, "type": "invite"})
    assert verified.user.email == address


def test_invite_needs_the_service_role(live_server: harness.LiveServer) -> None:
    admin = create_client(live_server.url, live_server.anon_key).auth.admin
    with pytest.raises(AuthApiError) as refused:
        admin.invite_user_by_email(email())
    assert refused.value.status == 403 and refused.value.code == "not_admin"


@pytest.fixture(scope="module")
def oauth_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_OAUTH_SERVER_ENABLED": "true"}) as server:
        yield server


def test_admin_oauth_clients(oauth_server: harness.LiveServer) -> None:
    oauth = create_client(oauth_server.url, oauth_server.service_key).auth.admin.oauth
    created = oauth.create_client({"client_name": "py app", "redirect_uris": ["https://py.example.com/cb"]}).client
    assert created is not None and created.client_secret and created.client_type == "confidential"
    fetched = oauth.get_client(created.client_id).client
    assert fetched is not None and fetched.client_secret is None and fetched.client_name == "py app"
    listed = oauth.list_clients()
    assert any(c.client_id == created.client_id for c in listed.clients)
    paged = oauth.list_clients(PageParams(page=1, per_page=1))
    assert len(paged.clients) == 1 and paged.total >= 1
    updated = oauth.update_client(created.client_id, {"client_name": "py app 2"}).client
    assert updated is not None and updated.client_name == "py app 2"
    regenerated = oauth.regenerate_client_secret(created.client_id).client
    assert regenerated is not None and regenerated.client_secret not in (None, created.client_secret)
    oauth.delete_client(created.client_id)
    with pytest.raises(AuthApiError) as gone:
        oauth.get_client(created.client_id)
    assert gone.value.status == 404 and gone.value.code == "oauth_client_not_found"
    with pytest.raises(AuthApiError) as invalid:
        oauth.create_client({"client_name": "bad", "redirect_uris": []})
    assert invalid.value.status == 400 and invalid.value.message == "400: redirect_uris is required"


def test_admin_oauth_disabled(live_server: harness.LiveServer) -> None:
    oauth = create_client(live_server.url, live_server.service_key).auth.admin.oauth
    with pytest.raises(AuthApiError) as disabled:
        oauth.list_clients()
    assert disabled.value.status == 404 and disabled.value.code == "feature_disabled"
