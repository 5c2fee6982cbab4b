"""supabase-py (supabase_auth), unmodified, with an external OIDC provider (the local one of
tests/auth/oidc_provider.py, as "keycloak"): sign_in_with_oauth with PKCE and
exchange_code_for_session, sign_in_with_id_token, link_identity / get_user_identities /
unlink_identity."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from supabase import ClientOptions, create_client
from supabase_auth.errors import AuthApiError

from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import auth_server

SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def provider() -> Iterator[oidc_provider.RunningProvider]:
    with oidc_provider.running() as running:
        yield running


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        **provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE, "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true",
    }) as live:
        yield live


def email() -> str:
    return f"py-oidc-{uuid.uuid4().hex[:10]}@example.com"


def follow_to_site(url: str) -> str:
    for _ in range(3):
        response = httpx.get(url, follow_redirects=False)
        assert response.status_code in (302, 303), response.text
        url = response.headers["location"]
        if url.startswith(SITE):
            return url
    raise AssertionError(f"never back at {SITE}")


def test_pkce_sign_in_with_oauth(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key, ClientOptions(flow_type="pkce"))
    address = email()
    started = supabase.auth.sign_in_with_oauth({"provider": "keycloak", "options": {
        "redirect_to": f"{SITE}/cb", "query_params": {"login_hint": address}}})
    assert "code_challenge=" in started.url
    back = follow_to_site(started.url)
    code = parse_qs(urlsplit(back).query)["code"][0]
    session = supabase.auth.exchange_code_for_session({"auth_code": code})
    assert session.user.email == address and session.session.provider_token
    assert supabase.auth.get_user().user.app_metadata["provider"] == "keycloak"


def test_sign_in_with_id_token(server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    supabase = create_client(server.url, server.anon_key)
    nonce = secrets.token_hex(8)
    address = email()
    token = provider.mint(claims={"sub": f"py-{nonce}", "email": address, "email_verified": True,
                                  "nonce": hashlib.sha256(nonce.encode()).hexdigest()})["id_token"]
    signed_in = supabase.auth.sign_in_with_id_token({"provider": "keycloak", "token": token, "nonce": nonce})
    assert signed_in.user.email == address
    with pytest.raises(AuthApiError) as refused:
        supabase.auth.sign_in_with_id_token({"provider": "keycloak", "token": token, "nonce": "other"})
    assert "Nonces mismatch" in refused.value.message


def test_link_list_and_unlink_identities(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key)
    supabase.auth.sign_up({"email": email(), "password": "py-password"})
    started = supabase.auth.link_identity({"provider": "keycloak", "options": {
        "redirect_to": f"{SITE}/linked", "query_params": {"login_hint": email()}}})
    assert "?code=" in follow_to_site(started.url)  # supabase-py's default flow is PKCE
    identities = supabase.auth.get_user_identities().identities
    assert [i.provider for i in identities] == ["email", "keycloak"]
    supabase.auth.unlink_identity(next(i for i in identities if i.provider == "keycloak"))
    assert [i.provider for i in supabase.auth.get_user_identities().identities] == ["email"]
