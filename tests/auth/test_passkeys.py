"""Passkeys (/passkeys, /admin/users/{id}/passkeys) against a software authenticator: the
ceremonies as GoTrue runs them, and every way an answer can be wrong."""

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
from tests.auth.soft_authenticator import FLAG_AT, FLAG_UV, SoftAuthenticator, b64url

ORIGIN = "http://localhost:3000"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    # The relying party by default: the site URL's host and origin.
    with auth_server(database_url, {"GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_SITE_URL": ORIGIN,
                                    "GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER": "3"}) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


@pytest.fixture(scope="module")
def admin(server: harness.LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.service_key}"}


def register(api: httpx.Client, session: dict[str, Any], device: SoftAuthenticator, **spoil: Any) -> httpx.Response:
    options = api.post("/passkeys/registration/options", headers=bearer(session), json={})
    assert options.status_code == 200, options.text
    body = options.json()
    credential = device.create(body["options"], **spoil)
    return api.post("/passkeys/registration/verify", headers=bearer(session),
                    json={"challenge_id": body["challenge_id"], "credential": credential})


def sign_in_options(api: httpx.Client) -> dict[str, Any]:
    response = api.post("/passkeys/authentication/options", json={})
    assert response.status_code == 200, response.text
    return response.json()


def sign_in(api: httpx.Client, device: SoftAuthenticator, credential_id: bytes | None = None,
            **spoil: Any) -> httpx.Response:
    body = sign_in_options(api)
    assertion = device.get(body["options"], credential_id, **spoil)
    return api.post("/passkeys/authentication/verify", json={"challenge_id": body["challenge_id"], "credential": assertion})


def error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["code"], body["message"]


@pytest.fixture
def user(api: httpx.Client) -> dict[str, Any]:
    return sign_up(api, new_email("pk"), data={"name": "Ada L."})


def test_register_list_rename_sign_in_delete(api: httpx.Client, user: dict[str, Any]) -> None:
    options = api.post("/passkeys/registration/options", headers=bearer(user), json={})
    assert options.status_code == 200, options.text
    body = options.json()
    assert set(body) == {"challenge_id", "options", "expires_at"}
    public_key = body["options"]
    assert public_key["rp"] == {"name": "localhost", "id": "localhost"}
    assert public_key["user"]["id"] == b64url(user["user"]["id"].encode())
    assert public_key["user"]["name"] == user["user"]["email"] and public_key["user"]["displayName"] == "Ada L."
    assert public_key["authenticatorSelection"]["residentKey"] == "required"
    assert public_key["attestation"] == "none" and "excludeCredentials" not in public_key
    assert {"type": "public-key", "alg": -7} in public_key["pubKeyCredParams"]

    device = SoftAuthenticator(ORIGIN)
    created = api.post("/passkeys/registration/verify", headers=bearer(user), json={
        "challenge_id": body["challenge_id"], "credential": device.create(public_key)})
    assert created.status_code == 200, created.text
    passkey = created.json()
    assert set(passkey) == {"id", "friendly_name", "created_at"} and passkey["friendly_name"] == "Passkey"

    # The next registration excludes the credential already registered.
    again = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()["options"]
    assert [c["id"] for c in again["excludeCredentials"]] == [b64url(next(iter(device.credentials)))]

    listed = api.get("/passkeys", headers=bearer(user))
    assert listed.status_code == 200 and [p["id"] for p in listed.json()] == [passkey["id"]]
    assert "last_used_at" not in listed.json()[0]

    renamed = api.patch(f"/passkeys/{passkey['id']}", headers=bearer(user), json={"friendly_name": "Laptop"})
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "Laptop"

    signed_in = sign_in(api, device)
    assert signed_in.status_code == 200, signed_in.text
    session = signed_in.json()
    assert session["user"]["id"] == user["user"]["id"] and session["refresh_token"]
    claims = _claims(session)
    assert [a["method"] for a in claims["amr"]] == ["passkey"] and claims["aal"] == "aal1"
    assert api.get("/user", headers=bearer(session)).json()["id"] == user["user"]["id"]
    assert "last_used_at" in api.get("/passkeys", headers=bearer(user)).json()[0]

    deleted = api.delete(f"/passkeys/{passkey['id']}", headers=bearer(user))
    assert deleted.status_code == 204 and deleted.content == b""
    assert api.get("/passkeys", headers=bearer(user)).json() == []
    # A deleted passkey signs nobody in.
    assert error(sign_in(api, device))[:2] == (400, "webauthn_verification_failed")


def _claims(session: dict[str, Any]) -> dict[str, Any]:
    payload = session["access_token"].split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_authentication_options_are_discoverable(api: httpx.Client) -> None:
    body = sign_in_options(api)
    assert set(body["options"]) == {"challenge", "timeout", "rpId", "userVerification"}
    assert body["options"]["rpId"] == "localhost" and body["options"]["userVerification"] == "preferred"


def test_a_challenge_is_used_once(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    assert register(api, user, device).status_code == 200
    body = sign_in_options(api)
    verify = {"challenge_id": body["challenge_id"], "credential": device.get(body["options"])}
    assert api.post("/passkeys/authentication/verify", json=verify).status_code == 200
    replay = api.post("/passkeys/authentication/verify", json=verify)
    assert error(replay) == (400, "webauthn_challenge_not_found", "Challenge not found or already used")
    # A failed verify uses the challenge up too.
    body = sign_in_options(api)
    bad = {"challenge_id": body["challenge_id"], "credential": device.get(body["options"], spoil_signature=True)}
    assert error(api.post("/passkeys/authentication/verify", json=bad))[1] == "webauthn_verification_failed"
    good = {"challenge_id": body["challenge_id"], "credential": device.get(body["options"])}
    assert error(api.post("/passkeys/authentication/verify", json=good))[1] == "webauthn_challenge_not_found"
    # So does a failed registration, and nothing is registered.
    options = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
    spoilt = {"challenge_id": options["challenge_id"], "credential": device.create(options["options"], origin="http://evil.example")}
    assert error(api.post("/passkeys/registration/verify", headers=bearer(user), json=spoilt))[1] == "webauthn_verification_failed"
    retried = {"challenge_id": options["challenge_id"], "credential": device.create(options["options"])}
    assert error(api.post("/passkeys/registration/verify", headers=bearer(user), json=retried))[1] == "webauthn_challenge_not_found"
    assert len(api.get("/passkeys", headers=bearer(user)).json()) == 1
    # A registration challenge is no sign-in challenge, and the other way round.
    reg = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
    wrong_kind = {"challenge_id": reg["challenge_id"], "credential": device.get(reg["options"])}
    assert error(api.post("/passkeys/authentication/verify", json=wrong_kind))[1] == "webauthn_challenge_not_found"


def test_expired_challenges(api: httpx.Client, server: harness.LiveServer, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    options = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
    sign = sign_in_options(api)
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.webauthn_challenges set expires_at = now() - interval '1 second'"
                     " where id = any(%s)", [[uuid.UUID(options["challenge_id"]), uuid.UUID(sign["challenge_id"])]])
    late = api.post("/passkeys/registration/verify", headers=bearer(user), json={
        "challenge_id": options["challenge_id"], "credential": device.create(options["options"])})
    assert error(late) == (400, "webauthn_challenge_expired", "Challenge has expired")
    assert api.get("/passkeys", headers=bearer(user)).json() == []
    assert register(api, user, device).status_code == 200
    late_sign_in = api.post("/passkeys/authentication/verify", json={
        "challenge_id": sign["challenge_id"], "credential": device.get(sign["options"])})
    assert error(late_sign_in)[:2] == (400, "webauthn_challenge_expired")
    # An expired challenge is gone once answered.
    again = api.post("/passkeys/authentication/verify", json={
        "challenge_id": sign["challenge_id"], "credential": device.get(sign["options"])})
    assert error(again)[1] == "webauthn_challenge_not_found"


@pytest.mark.parametrize("spoil", [
    {"origin": "http://evil.example"},
    {"rp_id": "evil.example"},
    {"challenge": b64url(b"not the challenge I was given")},
    {"kind": "webauthn.get"},
    {"flags": FLAG_UV | FLAG_AT},  # user not present
])
def test_registration_refused(api: httpx.Client, user: dict[str, Any], spoil: dict[str, Any]) -> None:
    refused = register(api, user, SoftAuthenticator(ORIGIN), **spoil)
    assert error(refused) == (400, "webauthn_verification_failed", "Credential verification failed")
    assert api.get("/passkeys", headers=bearer(user)).json() == []


@pytest.mark.parametrize("spoil", [
    {"origin": "http://localhost:3001"},
    {"rp_id": "evil.example"},
    {"challenge": b64url(b"another challenge")},
    {"kind": "webauthn.create"},
    {"spoil_signature": True},
    {"flags": FLAG_UV},  # user not present
])
def test_sign_in_refused(api: httpx.Client, user: dict[str, Any], spoil: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    assert register(api, user, device).status_code == 200
    assert error(sign_in(api, device, **spoil)) == (400, "webauthn_verification_failed", "Credential verification failed")
    assert sign_in(api, device).status_code == 200


def test_sign_counter_must_move_forward(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    assert register(api, user, device).status_code == 200
    assert sign_in(api, device, sign_count=5).status_code == 200
    assert error(sign_in(api, device, sign_count=5))[1] == "webauthn_verification_failed"  # replayed counter
    assert error(sign_in(api, device, sign_count=4))[1] == "webauthn_verification_failed"  # counter going back
    assert sign_in(api, device, sign_count=6).status_code == 200
    # An authenticator that never counts (0 each time) is accepted, as WebAuthn allows.
    still = SoftAuthenticator(ORIGIN, counter_step=0)
    assert register(api, user, still).status_code == 200
    assert sign_in(api, still).status_code == 200 and sign_in(api, still).status_code == 200


def test_user_handle_names_the_owner(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    assert register(api, user, device).status_code == 200
    other = sign_up(api, new_email("pk-other"))
    # The assertion claims another user (or nobody): the credential is not theirs.
    for handle in (other["user"]["id"].encode(), str(uuid.uuid4()).encode(), b"not-a-uuid"):
        assert error(sign_in(api, device, user_handle=handle))[1] == "webauthn_verification_failed"
    missing_handle = sign_in_options(api)
    assertion = device.get(missing_handle["options"])
    assertion["response"]["userHandle"] = None
    refused = api.post("/passkeys/authentication/verify", json={"challenge_id": missing_handle["challenge_id"],
                                                                  "credential": assertion})
    assert error(refused)[1] == "webauthn_verification_failed"


def test_another_users_passkey(api: httpx.Client, admin: dict[str, str], user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    passkey = register(api, user, device).json()
    other = sign_up(api, new_email("pk-other"))
    assert api.get("/passkeys", headers=bearer(other)).json() == []
    assert error(api.patch(f"/passkeys/{passkey['id']}", headers=bearer(other), json={"friendly_name": "mine"})) == (
        404, "validation_failed", "Passkey not found")
    assert error(api.delete(f"/passkeys/{passkey['id']}", headers=bearer(other)))[:2] == (404, "validation_failed")
    assert error(api.delete(f"/admin/users/{other['user']['id']}/passkeys/{passkey['id']}", headers=admin))[0] == 404
    assert [p["id"] for p in api.get("/passkeys", headers=bearer(user)).json()] == [passkey["id"]]
    # Registering the same credential id again (for anyone) is refused.
    options = api.post("/passkeys/registration/options", headers=bearer(other), json={}).json()
    stolen = SoftAuthenticator(ORIGIN).create(options["options"], credential_id=next(iter(device.credentials)))
    refused = api.post("/passkeys/registration/verify", headers=bearer(other), json={
        "challenge_id": options["challenge_id"], "credential": stolen})
    assert error(refused) == (422, "webauthn_credential_exists", "This credential is already registered")


def test_passkey_limit(api: httpx.Client, user: dict[str, Any]) -> None:
    device = SoftAuthenticator(ORIGIN)
    options = [api.post("/passkeys/registration/options", headers=bearer(user), json={}).json() for _ in range(4)]
    for body in options[:3]:
        created = api.post("/passkeys/registration/verify", headers=bearer(user), json={
            "challenge_id": body["challenge_id"], "credential": device.create(body["options"])})
        assert created.status_code == 200
    # Options taken before the limit was reached are refused at verify.
    fourth = api.post("/passkeys/registration/verify", headers=bearer(user), json={
        "challenge_id": options[3]["challenge_id"], "credential": device.create(options[3]["options"])})
    assert error(fourth) == (422, "too_many_passkeys", "Maximum number of passkeys reached")
    assert error(api.post("/passkeys/registration/options", headers=bearer(user), json={}))[:2] == (
        422, "too_many_passkeys")


def test_registration_needs_a_real_user(api: httpx.Client) -> None:
    assert error(api.post("/passkeys/registration/options", json={}))[:2] == (401, "no_authorization")
    anonymous = api.post("/signup", json={}).json()
    refused = api.post("/passkeys/registration/options", headers=bearer(anonymous), json={})
    assert error(refused) == (403, "no_authorization", "Anonymous user not allowed to perform these actions")
    assert error(api.get("/passkeys", headers={"Authorization": "Bearer nope"}))[:2] == (403, "bad_jwt")


@pytest.mark.parametrize("body, code, message", [
    ({}, "validation_failed", "challenge_id is required"),
    ({"challenge_id": str(uuid.uuid4())}, "validation_failed", "credential is required"),
    ({"challenge_id": "nope", "credential": {}}, "validation_failed", "challenge_id must be a valid UUID"),
    ({"challenge_id": 7, "credential": {}}, "bad_json", None),
    ({"challenge_id": str(uuid.uuid4()), "credential": {}}, "webauthn_challenge_not_found", None),
])
def test_verify_parameters(api: httpx.Client, user: dict[str, Any], body: dict[str, Any], code: str,
                           message: str | None) -> None:
    for path, headers in (("/passkeys/registration/verify", bearer(user)), ("/passkeys/authentication/verify", {})):
        status, got_code, got_message = error(api.post(path, headers=headers, json=body))
        assert (status, got_code) == (400, code)
        assert message is None or got_message == message
    assert error(api.post("/passkeys/authentication/verify", content=b"[1]"))[:2] == (400, "bad_json")
    assert error(api.post("/passkeys/authentication/verify", content=b"{"))[:2] == (400, "bad_json")


@pytest.mark.parametrize("credential", [
    "a string", 12, [1, 2], {"id": "x"},
    {"id": "!!", "rawId": "!!", "type": "public-key", "response": {"clientDataJSON": "!!", "authenticatorData": "!!",
                                                                   "signature": "!!", "userHandle": "!!"}},
    {"id": "AA", "rawId": "AA", "type": "public-key", "response": {"clientDataJSON": "e30", "authenticatorData": "AA",
                                                                   "signature": "AA", "userHandle": 5}},
])
def test_malformed_credentials(api: httpx.Client, user: dict[str, Any], credential: Any) -> None:
    malformed = (400, "webauthn_verification_failed", "Invalid credential response")
    sign = sign_in_options(api)
    refused = api.post("/passkeys/authentication/verify", json={"challenge_id": sign["challenge_id"], "credential": credential})
    assert error(refused) == malformed
    options = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
    refused = api.post("/passkeys/registration/verify", headers=bearer(user), json={
        "challenge_id": options["challenge_id"], "credential": credential})
    assert error(refused) == malformed


def test_malformed_attestation(api: httpx.Client, user: dict[str, Any]) -> None:
    options = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
    credential = SoftAuthenticator(ORIGIN).create(options["options"])
    credential["response"]["attestationObject"] = b64url(b"\xa1\x63fmt\x64none" + b"\xff" * 50)
    refused = api.post("/passkeys/registration/verify", headers=bearer(user), json={
        "challenge_id": options["challenge_id"], "credential": credential})
    assert error(refused)[:2] == (400, "webauthn_verification_failed")


def test_oversize_body(api: httpx.Client) -> None:
    huge = {"challenge_id": str(uuid.uuid4()), "credential": {"id": "A" * 200_000}}
    assert api.post("/passkeys/authentication/verify", json=huge).status_code == 413


def test_rename_validation(api: httpx.Client, user: dict[str, Any]) -> None:
    passkey = register(api, user, SoftAuthenticator(ORIGIN)).json()
    path = f"/passkeys/{passkey['id']}"
    assert error(api.patch(path, headers=bearer(user), json={})) == (400, "validation_failed", "friendly_name is required")
    assert error(api.patch(path, headers=bearer(user), json={"friendly_name": "x" * 121})) == (
        400, "validation_failed", "friendly_name must be 120 characters or less")
    assert api.patch(path, headers=bearer(user), json={"friendly_name": "é" * 120}).status_code == 200
    assert error(api.patch(path, headers=bearer(user), json={"friendly_name": 5}))[:2] == (400, "bad_json")
    assert error(api.patch("/passkeys/not-a-uuid", headers=bearer(user), json={"friendly_name": "a"}))[:2] == (
        404, "validation_failed")
    assert error(api.patch(f"/passkeys/{uuid.uuid4()}", headers=bearer(user), json={"friendly_name": "a"}))[:2] == (
        404, "validation_failed")


def test_sign_in_needs_a_confirmed_unbanned_user(api: httpx.Client, admin: dict[str, str], user: dict[str, Any],
                                                 server: harness.LiveServer) -> None:
    device = SoftAuthenticator(ORIGIN)
    assert register(api, user, device).status_code == 200
    banned = api.put(f"/admin/users/{user['user']['id']}", headers=admin, json={"ban_duration": "24h"})
    assert banned.status_code == 200, banned.text
    assert error(sign_in(api, device)) == (403, "user_banned", "User is banned")
    api.put(f"/admin/users/{user['user']['id']}", headers=admin, json={"ban_duration": "none"})
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set email_confirmed_at = null where id = %s", [user["user"]["id"]])
    assert error(sign_in(api, device)) == (403, "email_not_confirmed", "Email not confirmed")


def test_admin_list_and_delete(api: httpx.Client, admin: dict[str, str], user: dict[str, Any]) -> None:
    first = register(api, user, SoftAuthenticator(ORIGIN)).json()
    second = register(api, user, SoftAuthenticator(ORIGIN)).json()
    path = f"/admin/users/{user['user']['id']}/passkeys"
    listed = api.get(path, headers=admin)
    assert listed.status_code == 200 and [p["id"] for p in listed.json()] == [first["id"], second["id"]]
    assert api.delete(f"{path}/{first['id']}", headers=admin).status_code == 204
    assert [p["id"] for p in api.get(path, headers=admin).json()] == [second["id"]]
    assert error(api.delete(f"{path}/{first['id']}", headers=admin)) == (404, "validation_failed", "Passkey not found")
    assert error(api.get(f"/admin/users/{uuid.uuid4()}/passkeys", headers=admin))[:2] == (404, "user_not_found")
    assert error(api.get("/admin/users/nope/passkeys", headers=admin))[:2] == (404, "user_not_found")
    assert error(api.get(path, headers=bearer(user)))[:2] == (403, "not_admin")


def test_passkey_management_needs_aal2_with_mfa(api: httpx.Client, server: harness.LiveServer,
                                                 user: dict[str, Any]) -> None:
    passkey = register(api, user, SoftAuthenticator(ORIGIN)).json()
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,"
                     " updated_at) values (gen_random_uuid(), %s, 'totp', 'totp', 'verified', now(), now())",
                     [user["user"]["id"]])
    message = "AAL2 session is required to manage passkeys when MFA is enabled"
    assert error(api.post("/passkeys/registration/options", headers=bearer(user), json={})) == (
        403, "insufficient_aal", message)
    assert error(api.delete(f"/passkeys/{passkey['id']}", headers=bearer(user))) == (403, "insufficient_aal", message)
    # Listing and renaming stay open.
    assert api.get("/passkeys", headers=bearer(user)).status_code == 200
    assert api.patch(f"/passkeys/{passkey['id']}", headers=bearer(user), json={"friendly_name": "a"}).status_code == 200
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.sessions set aal = 'aal2' where user_id = %s", [user["user"]["id"]])
    assert api.delete(f"/passkeys/{passkey['id']}", headers=bearer(user)).status_code == 204


def test_passkeys_disabled(database_url: str) -> None:
    with auth_server(database_url) as server, auth_api(server, new_api=True) as api:
        session = sign_up(api)
        for method, path, headers in (
            ("POST", "/passkeys/authentication/options", {}), ("POST", "/passkeys/authentication/verify", {}),
            ("POST", "/passkeys/registration/options", bearer(session)),
            ("POST", "/passkeys/registration/verify", bearer(session)), ("GET", "/passkeys", bearer(session)),
            ("PATCH", f"/passkeys/{uuid.uuid4()}", bearer(session)),
            ("DELETE", f"/passkeys/{uuid.uuid4()}", bearer(session)),
        ):
            refused = api.request(method, path, headers=headers, json={})
            assert error(refused) == (404, "passkey_disabled", "Passkeys are disabled"), (method, path)
        assert api.get("/settings").json()["passkeys_enabled"] is False
        admin = {"Authorization": f"Bearer {server.service_key}"}
        assert api.get(f"/admin/users/{session['user']['id']}/passkeys", headers=admin).json() == []


def test_explicit_relying_party(database_url: str) -> None:
    with auth_server(database_url, {
        "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost",
        "GOTRUE_WEBAUTHN_RP_DISPLAY_NAME": "Supalite", "GOTRUE_WEBAUTHN_RP_ORIGINS": "http://localhost:5173,http://localhost:8080",
    }) as server, auth_api(server, new_api=True) as api:
        user = sign_up(api)
        options = api.post("/passkeys/registration/options", headers=bearer(user), json={}).json()
        assert options["options"]["rp"] == {"name": "Supalite", "id": "localhost"}
        # Any configured origin, and only those.
        assert register(api, user, SoftAuthenticator("http://localhost:8080")).status_code == 200
        assert error(register(api, user, SoftAuthenticator(ORIGIN)))[1] == "webauthn_verification_failed"
        device = SoftAuthenticator("http://localhost:5173")
        assert register(api, user, device).status_code == 200 and sign_in(api, device).status_code == 200
