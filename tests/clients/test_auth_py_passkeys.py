"""supabase-py (supabase_auth), unmodified, with passkeys and WebAuthn factors made by the
software authenticator: supabase-py has no WebAuthn ceremony of its own, but it holds and
refreshes a passkey session, reads a user's WebAuthn factors and their aal, and the admin
API lists and deletes them."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from supabase import create_client

from tests import harness
from tests.auth.conftest import auth_api, auth_server
from tests.auth.soft_authenticator import SoftAuthenticator

ORIGIN = "http://localhost:3000"
PASSWORD = "py-webauthn-pass"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost",
        "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN,
    }) as server:
        yield server


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_passkey_session(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key)
    address = f"py-pk-{uuid.uuid4().hex[:10]}@example.com"
    signed_up = supabase.auth.sign_up({"email": address, "password": PASSWORD})
    assert signed_up.session is not None
    device = SoftAuthenticator(ORIGIN)
    with auth_api(server) as api:
        headers = bearer(signed_up.session.access_token)
        options = api.post("/passkeys/registration/options", headers=headers, json={}).json()
        created = api.post("/passkeys/registration/verify", headers=headers, json={
            "challenge_id": options["challenge_id"], "credential": device.create(options["options"])})
        assert created.status_code == 200, created.text
        sign_in = api.post("/passkeys/authentication/options", json={}).json()
        session: dict[str, Any] = api.post("/passkeys/authentication/verify", json={
            "challenge_id": sign_in["challenge_id"], "credential": device.get(sign_in["options"])}).json()

    tab = create_client(server.url, server.anon_key)
    restored = tab.auth.set_session(session["access_token"], session["refresh_token"])
    assert restored.user is not None and restored.user.email == address
    level = tab.auth.mfa.get_authenticator_assurance_level()
    assert level.current_level == "aal1"
    assert [m.method for m in level.current_authentication_methods] == ["passkey"]
    refreshed = tab.auth.refresh_session()
    assert refreshed.session is not None and refreshed.session.refresh_token != session["refresh_token"]
    assert tab.auth.get_user().user.id == restored.user.id


def test_webauthn_factor(server: harness.LiveServer) -> None:
    supabase = create_client(server.url, server.anon_key)
    address = f"py-wa-{uuid.uuid4().hex[:10]}@example.com"
    user = supabase.auth.sign_up({"email": address, "password": PASSWORD}).user
    assert user is not None
    token = supabase.auth.get_session().access_token
    device = SoftAuthenticator(ORIGIN)
    with auth_api(server) as api:
        factor = api.post("/factors", headers=bearer(token), json={"factor_type": "webauthn", "friendly_name": "key"}).json()
        challenge = api.post(f"/factors/{factor['id']}/challenge", headers=bearer(token), json={}).json()
        credential = device.create(challenge["webauthn"]["credential_options"]["publicKey"])
        verified = api.post(f"/factors/{factor['id']}/verify", headers=bearer(token), json={
            "challenge_id": challenge["id"], "webauthn": {"type": "create", "credential_response": credential}})
        assert verified.status_code == 200, verified.text

    tab = create_client(server.url, server.anon_key)
    tab.auth.sign_in_with_password({"email": address, "password": PASSWORD})
    level = tab.auth.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal2")
    factors = tab.auth.mfa.list_factors()
    assert [(f.id, f.factor_type, f.status) for f in factors.all] == [(factor["id"], "webauthn", "verified")]

    admin = create_client(server.url, server.service_key).auth.admin.mfa
    listed = admin.list_factors({"user_id": user.id})
    assert [f.id for f in listed] == [factor["id"]]
    admin.delete_factor({"user_id": user.id, "id": factor["id"]})
    assert admin.list_factors({"user_id": user.id}) == []
