"""WebAuthn MFA factors (/factors with factor_type "webauthn") against a software
authenticator: enrollment by a registration ceremony, sign-in to aal2 by an assertion, and
every way an answer can be wrong."""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import auth_api, auth_server, bearer, new_email, sign_up
from tests.auth.soft_authenticator import FLAG_UV, SoftAuthenticator, b64url

ORIGIN = "http://localhost:3000"
PASSWORD = "secret-pass"
RP = {"rpId": "localhost", "rpOrigins": [ORIGIN]}  # what auth-js sends; the server's settings decide


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
        "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN,
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


def claims(session: dict[str, Any]) -> dict[str, Any]:
    payload = session["access_token"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["code"], body["message"]


def challenge(api: httpx.Client, session: dict[str, Any], factor_id: str) -> dict[str, Any]:
    response = api.post(f"/factors/{factor_id}/challenge", headers=bearer(session), json={"webauthn": RP})
    assert response.status_code == 200, response.text
    return response.json()


def verify(api: httpx.Client, session: dict[str, Any], factor_id: str, challenge_id: str, kind: str,
           credential: Any) -> httpx.Response:
    return api.post(f"/factors/{factor_id}/verify", headers=bearer(session), json={
        "challenge_id": challenge_id, "webauthn": {**RP, "type": kind, "credential_response": credential}})


def enroll(api: httpx.Client, session: dict[str, Any], device: SoftAuthenticator, name: str = "Key") -> str:
    enrolled = api.post("/factors", headers=bearer(session), json={"factor_type": "webauthn", "friendly_name": name})
    assert enrolled.status_code == 200, enrolled.text
    factor_id = enrolled.json()["id"]
    created = challenge(api, session, factor_id)
    credential = device.create(created["webauthn"]["credential_options"]["publicKey"])
    response = verify(api, session, factor_id, created["id"], "create", credential)
    assert response.status_code == 200, response.text
    return factor_id


def password_session(api: httpx.Client, email: str) -> dict[str, Any]:
    response = api.post("/token?grant_type=password", json={"email": email, "password": PASSWORD})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture
def user(api: httpx.Client) -> dict[str, Any]:
    return sign_up(api, new_email("mfa-wa"), PASSWORD)


def test_enroll_then_sign_in_to_aal2(api: httpx.Client, user: dict[str, Any]) -> None:
    enrolled = api.post("/factors", headers=bearer(user), json={"factor_type": "webauthn", "friendly_name": "Key"})
    assert enrolled.status_code == 200, enrolled.text
    factor = enrolled.json()
    assert set(factor) == {"id", "type", "friendly_name"} and factor["type"] == "webauthn"

    created = challenge(api, user, factor["id"])
    assert created["type"] == "webauthn" and created["expires_at"] > 0
    assert created["webauthn"]["type"] == "create"
    public_key = created["webauthn"]["credential_options"]["publicKey"]
    assert public_key["rp"] == {"name": "localhost", "id": "localhost"}
    assert public_key["user"]["id"] == b64url(user["user"]["id"].encode())
    assert public_key["user"]["name"] == user["user"]["email"]

    device = SoftAuthenticator(ORIGIN)
    verified = verify(api, user, factor["id"], created["id"], "create", device.create(public_key))
    assert verified.status_code == 200, verified.text
    session = verified.json()
    assert claims(session)["aal"] == "aal2"
    assert "mfa/webauthn" in [a["method"] for a in claims(session)["amr"]]
    factors = api.get("/user", headers=bearer(session)).json()["factors"]
    assert [(f["id"], f["status"], f["factor_type"]) for f in factors] == [(factor["id"], "verified", "webauthn")]
    assert factors[0]["web_authn_aaguid"] == "00000000-0000-0000-0000-000000000000"

    # Signing in again: the password gives aal1, the authenticator aal2.
    fresh = password_session(api, user["user"]["email"])
    assert claims(fresh)["aal"] == "aal1"
    asked = challenge(api, fresh, factor["id"])
    assert asked["webauthn"]["type"] == "request"
    request = asked["webauthn"]["credential_options"]["publicKey"]
    assert [c["id"] for c in request["allowCredentials"]] == [b64url(next(iter(device.credentials)))]
    assert request["rpId"] == "localhost"
    upgraded = verify(api, fresh, factor["id"], asked["id"], "request", device.get(request))
    assert upgraded.status_code == 200, upgraded.text
    assert claims(upgraded.json())["aal"] == "aal2"
    assert [a["method"] for a in claims(upgraded.json())["amr"]][:1] == ["mfa/webauthn"]


def test_a_challenge_is_answered_once(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, device)
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    assertion = device.get(asked["webauthn"]["credential_options"]["publicKey"])
    assert verify(api, fresh, factor_id, asked["id"], "request", assertion).status_code == 200
    replay = verify(api, fresh, factor_id, asked["id"], "request", assertion)
    assert error(replay)[:2] == (422, "mfa_ip_address_mismatch")  # GoTrue's answer to a used challenge


@pytest.mark.parametrize("spoil", [
    {"origin": "http://evil.example"},
    {"rp_id": "evil.example"},
    {"challenge": b64url(b"another challenge")},
    {"spoil_signature": True},
    {"flags": FLAG_UV},  # user not present
    {"kind": "webauthn.create"},
])
def test_assertion_refused(api: httpx.Client, user: dict[str, Any], spoil: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, device)
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    request = asked["webauthn"]["credential_options"]["publicKey"]
    refused = verify(api, fresh, factor_id, asked["id"], "request", device.get(request, **spoil))
    assert error(refused) == (422, "mfa_verification_failed", "Failed to validate WebAuthn MFA response")
    # The challenge still stands for a right answer.
    assert verify(api, fresh, factor_id, asked["id"], "request", device.get(request)).status_code == 200


def test_a_challenge_dies_after_five_wrong_answers(api: httpx.Client, user: dict[str, Any]) -> None:
    """Five wrong answers (server.auth.wrong_codes.MAX_WRONG_CODES) end the challenge: even a
    right one is then refused; a new challenge works."""
    device = SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, device)
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    request = asked["webauthn"]["credential_options"]["publicKey"]
    for _ in range(5):
        refused = verify(api, fresh, factor_id, asked["id"], "request", device.get(request, spoil_signature=True))
        assert error(refused) == (422, "mfa_verification_failed", "Failed to validate WebAuthn MFA response")
    assert error(verify(api, fresh, factor_id, asked["id"], "request", device.get(request))) == (
        422, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
    again = challenge(api, fresh, factor_id)
    answered = verify(api, fresh, factor_id, again["id"], "request",
                      device.get(again["webauthn"]["credential_options"]["publicKey"]))
    assert answered.status_code == 200, answered.text


@pytest.mark.parametrize("spoil", [
    {"origin": "http://evil.example"},
    {"rp_id": "evil.example"},
    {"challenge": b64url(b"another challenge")},
    {"kind": "webauthn.get"},
])
def test_registration_refused(api: httpx.Client, user: dict[str, Any], spoil: dict[str, Any]) -> None:
    enrolled = api.post("/factors", headers=bearer(user), json={"factor_type": "webauthn", "friendly_name": "Key"})
    factor_id = enrolled.json()["id"]
    created = challenge(api, user, factor_id)
    credential = SoftAuthenticator(ORIGIN).create(created["webauthn"]["credential_options"]["publicKey"], **spoil)
    refused = verify(api, user, factor_id, created["id"], "create", credential)
    assert error(refused) == (422, "mfa_verification_failed", "Failed to validate WebAuthn MFA response")
    assert api.get("/user", headers=bearer(user)).json()["factors"][0]["status"] == "unverified"


def test_sign_counter_must_move_forward(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, device)
    fresh = password_session(api, user["user"]["email"])

    def answer(count: int) -> httpx.Response:
        asked = challenge(api, fresh, factor_id)
        request = asked["webauthn"]["credential_options"]["publicKey"]
        return verify(api, fresh, factor_id, asked["id"], "request", device.get(request, sign_count=count))

    assert answer(7).status_code == 200
    assert error(answer(7))[:2] == (422, "mfa_verification_failed")
    assert error(answer(3))[:2] == (422, "mfa_verification_failed")
    assert answer(8).status_code == 200


def test_create_answer_for_a_verified_factor(api: httpx.Client, user: dict[str, Any]) -> None:
    # A verified factor is proven by its credential: a new one made on the spot is no proof.
    factor_id = enroll(api, user, SoftAuthenticator(ORIGIN))
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    request = asked["webauthn"]["credential_options"]["publicKey"]
    forged = SoftAuthenticator(ORIGIN).create({"rp": {"id": "localhost"}, "user": {"id": b64url(b"x")},
                                               "challenge": request["challenge"]})
    refused = verify(api, fresh, factor_id, asked["id"], "create", forged)
    assert error(refused)[:2] == (422, "mfa_verification_failed")
    assert claims(fresh)["aal"] == "aal1"


def test_another_users_credential_and_factor(api: httpx.Client, user: dict[str, Any]) -> None:
    mine, theirs = SoftAuthenticator(ORIGIN), SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, mine)
    other = sign_up(api, new_email("mfa-wa-other"), PASSWORD)
    other_factor = enroll(api, other, theirs)
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    request = asked["webauthn"]["credential_options"]["publicKey"]
    # The other user's authenticator answers this user's challenge: not this user's credential.
    refused = verify(api, fresh, factor_id, asked["id"], "request", theirs.get(request, rp_id="localhost"))
    assert error(refused)[:2] == (422, "mfa_verification_failed")
    # Another user's factor does not exist for this user.
    assert error(api.post(f"/factors/{other_factor}/challenge", headers=bearer(fresh), json={}))[:2] == (
        404, "mfa_factor_not_found")
    assert error(verify(api, fresh, other_factor, asked["id"], "request", mine.get(request)))[:2] == (
        404, "mfa_factor_not_found")


def test_expired_challenge(api: httpx.Client, server: harness.LiveServer, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    factor_id = enroll(api, user, device)
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.mfa_challenges set created_at = now() - interval '1 hour' where id = %s",
                     [uuid.UUID(asked["id"])])
    late = verify(api, fresh, factor_id, asked["id"], "request",
                  device.get(asked["webauthn"]["credential_options"]["publicKey"]))
    assert error(late)[:2] == (422, "mfa_challenge_expired")


@pytest.mark.parametrize("webauthn, message", [
    (None, "WebAuthn config required"),
    ({"type": "sign"}, "WebAuthn type must be create or request"),
    ({"type": "request"}, "credential_response required"),
])
def test_verify_parameters(api: httpx.Client, user: dict[str, Any], webauthn: Any, message: str) -> None:
    factor_id = enroll(api, user, SoftAuthenticator(ORIGIN))
    asked = challenge(api, user, factor_id)
    body: dict[str, Any] = {"challenge_id": asked["id"]}
    if webauthn is not None:
        body["webauthn"] = webauthn
    refused = api.post(f"/factors/{factor_id}/verify", headers=bearer(user), json=body)
    assert error(refused) == (400, "validation_failed", message)
    wrong_type = api.post(f"/factors/{factor_id}/verify", headers=bearer(user),
                          json={"challenge_id": asked["id"], "webauthn": "request"})
    assert error(wrong_type)[:2] == (400, "bad_json")


@pytest.mark.parametrize("credential", [
    "a string", 12, [1], {"id": "x"},
    {"id": "!!", "rawId": "!!", "type": "public-key", "response": {"clientDataJSON": "!!", "authenticatorData": "!!",
                                                                   "signature": "!!"}},
])
def test_malformed_credential_response(api: httpx.Client, user: dict[str, Any], credential: Any) -> None:
    enrolled = api.post("/factors", headers=bearer(user), json={"factor_type": "webauthn", "friendly_name": "New"})
    new_factor = enrolled.json()["id"]
    created = challenge(api, user, new_factor)
    assert error(verify(api, user, new_factor, created["id"], "create", credential)) == (
        400, "validation_failed", "Invalid credential_response")
    factor_id = enroll(api, user, SoftAuthenticator(ORIGIN), "Other")
    fresh = password_session(api, user["user"]["email"])
    asked = challenge(api, fresh, factor_id)
    assert error(verify(api, fresh, factor_id, asked["id"], "request", credential)) == (
        400, "validation_failed", "Invalid credential_response")


def test_disabled(database_url: str) -> None:
    with auth_server(database_url, {
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "false", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "false",
    }) as server, auth_api(server, new_api=True) as api:
        user = sign_up(api, new_email("mfa-wa-off"), PASSWORD)
        refused = api.post("/factors", headers=bearer(user), json={"factor_type": "webauthn", "friendly_name": "K"})
        assert error(refused) == (422, "mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn")
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            factor_id = conn.execute(
                "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at)"
                " values (gen_random_uuid(), %s, 'k', 'webauthn', 'unverified', now(), now()) returning id",
                [user["user"]["id"]]).fetchone()[0]
        assert error(api.post(f"/factors/{factor_id}/challenge", headers=bearer(user), json={})) == (
            422, "mfa_webauthn_verify_not_enabled", "MFA verification is disabled for WebAuthn")
        # GoTrue answers a disabled WebAuthn verify with the enroll code.
        refused = api.post(f"/factors/{factor_id}/verify", headers=bearer(user),
                           json={"challenge_id": str(uuid.uuid4()), "webauthn": {"type": "create"}})
        assert error(refused) == (422, "mfa_webauthn_enroll_not_enabled", "MFA verification is disabled for WebAuthn")
