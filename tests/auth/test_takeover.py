"""Ways into another person's account through sign-up and external identities (issue 33, holes
4 and 5), against real servers and the local OpenID provider (tests/auth/oidc_provider.py).

4: an ID token saying `email_verified: false` for an existing user's address, through
grant_type=id_token and through /authorize + /callback, with autoconfirm on (the dev default)
and off. 5: a sign-up over a pending invite and over an account an admin created unconfirmed,
with autoconfirm on and off.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import NEW_API, admin_headers_of, auth_api, auth_server, bearer, new_email
from tests.auth.test_oauth import fragment, query, sign_in

SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    """A dev server: autoconfirm on by default (the demo secret)."""
    with auth_server(database_url, {**provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE}) as live:
        yield live


@pytest.fixture(scope="module")
def strict(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    """E-mail confirmations on (mail goes to the dev inbox)."""
    with auth_server(database_url, {**provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE,
                                    "GOTRUE_MAILER_AUTOCONFIRM": "false"}) as live:
        yield live


def _owner(api: httpx.Client) -> tuple[str, dict[str, Any]]:
    email = new_email("victim")
    created = api.post("/signup", json={"email": email, "password": "owner-password"})
    assert created.status_code == 200, created.text
    return email, created.json()["user"]


def _unverified_token(provider: oidc_provider.RunningProvider, email: str) -> str:
    return provider.mint(claims={"sub": "attacker-" + secrets.token_hex(6), "email": email,
                                 "email_verified": False})["id_token"]


def _identities(live: harness.LiveServer, user_id: str) -> list[str]:
    with psycopg.connect(live.database_url) as conn:
        rows = conn.execute("select provider from auth.identities where user_id = %s order by created_at",
                            [user_id]).fetchall()
    return [row[0] for row in rows]


# -- 4: an unverified provider address -------------------------------------------------------

def test_an_unverified_id_token_address_does_not_sign_in_as_its_owner(
        server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    with auth_api(server, new_api=True) as api:
        email, owner = _owner(api)
        response = api.post("/token", params={"grant_type": "id_token"},
                            json={"provider": "keycloak", "id_token": _unverified_token(provider, email)})
        # GoTrue's decision for an unverified address: a new account, without the taken address.
        assert response.status_code == 200, response.text
        user = response.json()["user"]
        assert user["id"] != owner["id"]
        assert user.get("email", "") == ""
        assert _identities(server, owner["id"]) == ["email"]  # nothing linked to the owner


def test_an_unverified_callback_address_does_not_sign_in_as_its_owner(server: harness.LiveServer) -> None:
    with auth_api(server, new_api=True) as api:
        email, owner = _owner(api)
        done = sign_in(api, email, test_email_verified="false", test_sub="attacker-" + secrets.token_hex(6))
        tokens = fragment(done.headers["location"])
        assert "access_token" in tokens, done.headers["location"]
        user = api.get("/user", headers=bearer(tokens)).json()
        assert user["id"] != owner["id"] and user.get("email", "") == ""
        assert _identities(server, owner["id"]) == ["email"]


def test_with_confirmations_on_an_unverified_taken_address_is_refused(
        strict: harness.LiveServer, database_url: str, provider: oidc_provider.RunningProvider) -> None:
    with auth_api(strict, new_api=True) as api, psycopg.connect(database_url, autocommit=True) as conn:
        email = new_email("victim")
        owner = api.post("/admin/users", headers=admin_headers_of(strict),
                         json={"email": email, "password": "owner-password", "email_confirm": True}).json()
        response = api.post("/token", params={"grant_type": "id_token"},
                            json={"provider": "keycloak", "id_token": _unverified_token(provider, email)})
        assert response.status_code == 422, response.text
        assert response.json() == {"code": "provider_email_needs_verification",
                                   "message": "Unverified email with keycloak. Verify the email with keycloak in order"
                                              " to sign in"}
        assert _identities(strict, owner["id"]) == ["email"]
        done = sign_in(api, email, test_email_verified="false", test_sub="attacker-" + secrets.token_hex(6))
        assert query(done.headers["location"])["error_code"] == "provider_email_needs_verification"
        assert _identities(strict, owner["id"]) == ["email"]
        # No mail to the owner's address: the new account does not hold it.
        assert conn.execute("select count(*) from auth.dev_inbox where recipient = %s", [email]).fetchone() == (0,)


def test_a_verified_address_still_links(server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    with auth_api(server, new_api=True) as api:
        email, owner = _owner(api)
        token = provider.mint(claims={"sub": "owner-" + secrets.token_hex(6), "email": email,
                                      "email_verified": True})["id_token"]
        response = api.post("/token", params={"grant_type": "id_token"}, json={"provider": "keycloak", "id_token": token})
        assert response.status_code == 200 and response.json()["user"]["id"] == owner["id"]


# -- 5: sign-up over an unconfirmed account --------------------------------------------------

ALREADY = {"code": "user_already_exists", "message": "User already registered"}


def _invite(live: harness.LiveServer, api: httpx.Client, email: str) -> dict[str, Any]:
    invited = api.post("/invite", headers={**admin_headers_of(live), **NEW_API},
                       json={"email": email, "data": {"role": "teacher", "school": "secret-school"}})
    assert invited.status_code == 200, invited.text
    user: dict[str, Any] = invited.json()
    return user


def test_sign_up_over_a_pending_invite_gets_no_session(server: harness.LiveServer) -> None:
    with auth_api(server, new_api=True) as api:
        email = new_email("invited")
        invited = _invite(server, api, email)
        stranger = api.post("/signup", json={"email": email, "password": "stranger-password"})
        assert stranger.status_code == 422 and stranger.json() == ALREADY
        assert "secret-school" not in stranger.text
        me = api.get(f"/admin/users/{invited['id']}", headers=admin_headers_of(server)).json()
        assert "email_confirmed_at" not in me and not me.get("last_sign_in_at")  # still the invitee's


def test_sign_up_over_an_admin_created_account_needs_its_password(server: harness.LiveServer) -> None:
    with auth_api(server, new_api=True) as api:
        email = new_email("unconfirmed")
        created = api.post("/admin/users", headers=admin_headers_of(server),
                           json={"email": email, "password": "the-owners-password", "user_metadata": {"plan": "gold"}})
        assert created.status_code == 200 and "email_confirmed_at" not in created.json()
        stranger = api.post("/signup", json={"email": email, "password": "stranger-password"})
        assert stranger.status_code == 422 and stranger.json() == ALREADY and "gold" not in stranger.text
        without_password = new_email("nopassword")
        api.post("/admin/users", headers=admin_headers_of(server), json={"email": without_password})
        assert api.post("/signup", json={"email": without_password, "password": "anything-at-all"}).json() == ALREADY
        # Its owner, who knows the password, signs up (and in) as before.
        owner = api.post("/signup", json={"email": email, "password": "the-owners-password"})
        assert owner.status_code == 200, owner.text
        assert owner.json()["user"]["id"] == created.json()["id"] and owner.json()["access_token"]


def test_without_autoconfirm_the_invitee_is_mailed_and_the_caller_learns_nothing(strict: harness.LiveServer) -> None:
    with auth_api(strict, new_api=True) as api:
        email = new_email("invited")
        invited = _invite(strict, api, email)
        stranger = api.post("/signup", json={"email": email, "password": "stranger-password", "data": {"mine": 1}})
        assert stranger.status_code == 200, stranger.text
        body = stranger.json()
        assert "access_token" not in body and body["id"] != invited["id"]
        assert body["user_metadata"] == {"mine": 1} and "invited_at" not in body and body["identities"] == []
        mails = httpx.get(f"{strict.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
        assert [m["Kind"] for m in mails][:1] == ["signup"]  # the confirmation goes to the address


@pytest.fixture(scope="module")
def phones(database_url: str) -> Iterator[harness.LiveServer]:
    """Phone sign-ups, confirmed at once (GOTRUE_SMS_AUTOCONFIRM)."""
    with auth_server(database_url, {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_AUTOCONFIRM": "true"}) as live:
        yield live


def _phone() -> str:
    return "1555" + str(secrets.randbelow(10**7)).zfill(7)


def test_phone_sign_up_over_an_unconfirmed_number_needs_its_password(database_url: str,
                                                                     phones: harness.LiveServer) -> None:
    """A number signed up while confirmations were on, or sent a code by /otp, then a server that
    confirms phone sign-ups at once: only the password of the pending account opens it."""
    phone, bare = _phone(), _phone()
    with auth_server(database_url, {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
                                    "GOTRUE_SMS_TEST_OTP": f"{phone}:123456,{bare}:123456"}) as earlier, \
            auth_api(earlier, new_api=True) as before:
        pending = before.post("/signup", json={"phone": phone, "password": "the-owners-password",
                                               "data": {"plan": "gold"}})
        assert pending.status_code == 200 and "access_token" not in pending.json(), pending.text
        assert before.post("/otp", json={"phone": bare}).status_code == 200  # a pending user without a password
    with auth_api(phones, new_api=True) as api:
        stranger = api.post("/signup", json={"phone": phone, "password": "stranger-password"})
        assert stranger.status_code == 422 and stranger.json() == ALREADY and "gold" not in stranger.text
        assert api.post("/signup", json={"phone": bare, "password": "anything-at-all"}).json() == ALREADY
        owner = api.post("/signup", json={"phone": phone, "password": "the-owners-password"})
        assert owner.status_code == 200, owner.text
        assert owner.json()["user"]["id"] == pending.json()["id"] and owner.json()["access_token"]
        # a new number signs up as before
        assert api.post("/signup", json={"phone": _phone(), "password": "new-password"}).json()["access_token"]
