"""MFA factors against a real server: TOTP enroll/challenge/verify/unenroll, AAL in tokens,
admin factors, and bad input (GoTrue's mfa.go and admin.go answers)."""

from __future__ import annotations

import base64
import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import psycopg
import pyotp
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, auth_api, auth_server, bearer, new_email, sign_up


def claims(token: str) -> dict[str, Any]:
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def auth(session: dict[str, Any]) -> dict[str, str]:
    return {**bearer(session), **NEW_API}


def enroll_totp(api: httpx.Client, session: dict[str, Any], name: str = "", **extra: Any) -> httpx.Response:
    return api.post("/factors", json={"factor_type": "totp", "friendly_name": name, **extra}, headers=auth(session))


def challenge(api: httpx.Client, session: dict[str, Any], factor_id: str, **body: Any) -> httpx.Response:
    return api.post(f"/factors/{factor_id}/challenge", json=body, headers=auth(session))


def verify(api: httpx.Client, session: dict[str, Any], factor_id: str, challenge_id: Any, code: Any) -> httpx.Response:
    return api.post(f"/factors/{factor_id}/verify", json={"challenge_id": challenge_id, "code": code},
                    headers=auth(session))


def error(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body["code"], body["message"]


def refresh(api: httpx.Client, token: str) -> httpx.Response:
    return api.post("/token?grant_type=refresh_token", json={"refresh_token": token}, headers=NEW_API)


def verified_user(api: httpx.Client) -> tuple[dict[str, Any], str, str, dict[str, Any]]:
    """A signed-up user with a verified TOTP factor: (aal1 session, factor id, secret, aal2 session)."""
    session = sign_up(api)
    enrolled = enroll_totp(api, session, "phone app").json()
    secret = enrolled["totp"]["secret"]
    chal = challenge(api, session, enrolled["id"]).json()
    upgraded = verify(api, session, enrolled["id"], chal["id"], pyotp.TOTP(secret).now())
    assert upgraded.status_code == 200, upgraded.text
    return session, enrolled["id"], secret, upgraded.json()


def sql(server: harness.LiveServer, query: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


# -- TOTP ----------------------------------------------------------------------------------


def test_totp_enroll_answers_gotrue_shape(api: httpx.Client) -> None:
    session = sign_up(api, email=new_email("totp"))
    response = enroll_totp(api, session, "my phone", issuer="supalite.test")
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"id", "type", "friendly_name", "totp"} and body["type"] == "totp"
    assert body["friendly_name"] == "my phone"
    uuid.UUID(body["id"])
    secret = body["totp"]["secret"]
    assert len(secret) == 32 and base64.b32decode(secret)
    email = session["user"]["email"]
    assert body["totp"]["uri"] == (f"otpauth://totp/supalite.test:{email}?algorithm=SHA1&digits=6"
                                   f"&issuer=supalite.test&period=30&secret={secret}")
    svg = body["totp"]["qr_code"]
    assert svg.startswith("<svg xmlns=\"http://www.w3.org/2000/svg\"") and "#" not in svg
    # The factor is listed, unverified, in the user object.
    me = api.get("/user", headers=auth(session)).json()
    assert [(f["id"], f["status"], f["factor_type"], f["friendly_name"]) for f in me["factors"]] == [
        (body["id"], "unverified", "totp", "my phone")]
    assert me["factors"][0]["phone"] == "" and me["factors"][0]["last_challenged_at"] is None


def test_default_issuer_is_the_site_host(api: httpx.Client, live_server: harness.LiveServer) -> None:
    session = sign_up(api)
    uri = enroll_totp(api, session).json()["totp"]["uri"]
    host = live_server.url.removeprefix("http://")
    assert uri.startswith(f"otpauth://totp/{host}:") and f"&issuer={host.replace(':', '%3A')}&" in uri


def test_verify_raises_the_session_to_aal2(api: httpx.Client) -> None:
    session, factor_id, _, upgraded = verified_user(api)
    assert claims(session["access_token"])["aal"] == "aal1"
    token = claims(upgraded["access_token"])
    assert token["aal"] == "aal2" and token["session_id"] == claims(session["access_token"])["session_id"]
    assert [entry["method"] for entry in token["amr"]] == ["totp", "password"]
    assert upgraded["refresh_token"] != session["refresh_token"]
    assert set(upgraded) >= {"access_token", "token_type", "expires_in", "expires_at", "refresh_token", "user"}
    assert [(f["id"], f["status"]) for f in upgraded["user"]["factors"]] == [(factor_id, "verified")]
    # A refresh keeps the level and the methods.
    again = refresh(api, upgraded["refresh_token"]).json()
    assert claims(again["access_token"])["aal"] == "aal2"
    assert [entry["method"] for entry in claims(again["access_token"])["amr"]] == ["totp", "password"]


def test_wrong_code_and_replayed_challenge(api: httpx.Client) -> None:
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    totp = pyotp.TOTP(enrolled["totp"]["secret"])
    chal = challenge(api, session, enrolled["id"]).json()
    assert set(chal) == {"id", "type", "expires_at"} and chal["type"] == "totp"
    wrong = str((int(totp.now()) + 1) % 1_000_000).zfill(6)
    fullwidth = "".join(chr(0xFF10 + int(d)) for d in totp.now())  # NFKC would fold it to the right code
    for code in (wrong, "12345", "1234567", fullwidth):
        assert error(verify(api, session, enrolled["id"], chal["id"], code)) == (
            422, "mfa_verification_failed", "Invalid TOTP code entered")
    # Four wrong codes do not use the challenge up (a fifth would: test_code_guessing); the right
    # one does, once.
    assert verify(api, session, enrolled["id"], chal["id"], totp.now()).status_code == 200
    assert error(verify(api, session, enrolled["id"], chal["id"], totp.now())) == (
        422, "mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")


def test_code_of_the_neighbouring_steps_is_accepted(api: httpx.Client) -> None:
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    totp = pyotp.TOTP(enrolled["totp"]["secret"])
    chal = challenge(api, session, enrolled["id"]).json()
    assert error(verify(api, session, enrolled["id"], chal["id"], totp.at(time.time() - 120)))[1] == "mfa_verification_failed"
    assert verify(api, session, enrolled["id"], chal["id"], totp.at(time.time() - 30)).status_code == 200


def test_verify_bad_input(api: httpx.Client) -> None:
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    factor_id = enrolled["id"]
    code = pyotp.TOTP(enrolled["totp"]["secret"]).now()
    assert error(verify(api, session, factor_id, str(uuid.uuid4()), code)) == (
        422, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
    assert error(verify(api, session, factor_id, None, code))[1] == "mfa_factor_not_found"
    assert error(verify(api, session, factor_id, "not-a-uuid", code))[:2] == (400, "bad_json")
    assert error(verify(api, session, factor_id, 42, code))[:2] == (400, "bad_json")
    chal = challenge(api, session, factor_id).json()
    assert error(verify(api, session, factor_id, chal["id"], "")) == (400, "validation_failed", "Code needs to be non-empty")
    assert error(verify(api, session, factor_id, chal["id"], 123456))[:2] == (400, "bad_json")
    raw = api.post(f"/factors/{factor_id}/verify", content=b"[1]", headers=auth(session))
    assert error(raw)[:2] == (400, "bad_json")
    big = api.post(f"/factors/{factor_id}/verify", content=b"{" + b" " * 200_000 + b"}", headers=auth(session))
    assert big.status_code == 413


def test_unknown_foreign_and_malformed_factor_ids(api: httpx.Client) -> None:
    owner = sign_up(api)
    factor_id = enroll_totp(api, owner).json()["id"]
    stranger = sign_up(api)
    not_found = (404, "mfa_factor_not_found", "Factor not found")
    for path in (f"/factors/{factor_id}/challenge", f"/factors/{factor_id}/verify", f"/factors/{uuid.uuid4()}/challenge"):
        assert error(api.post(path, json={"challenge_id": str(uuid.uuid4()), "code": "123456"},
                              headers=auth(stranger))) == not_found
    assert error(api.delete(f"/factors/{factor_id}", headers=auth(stranger))) == not_found
    assert error(api.post("/factors/nope/challenge", json={}, headers=auth(owner))) == (
        404, "validation_failed", "factor_id must be an UUID")
    # The owner's factor is untouched.
    assert challenge(api, owner, factor_id).status_code == 200


def test_expired_challenge_is_deleted(api: httpx.Client, live_server: harness.LiveServer) -> None:
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    chal = challenge(api, session, enrolled["id"]).json()
    sql(live_server, "update auth.mfa_challenges set created_at = now() - interval '301 seconds' where id = %s", [chal["id"]])
    code = pyotp.TOTP(enrolled["totp"]["secret"]).now()
    assert error(verify(api, session, enrolled["id"], chal["id"], code)) == (
        422, "mfa_challenge_expired",
        f"MFA challenge {chal['id']} has expired, verify against another challenge or create a new challenge.")
    assert sql(live_server, "select 1 from auth.mfa_challenges where id = %s", [chal["id"]]) == []


def test_challenge_from_another_address(api: httpx.Client, live_server: harness.LiveServer) -> None:
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    chal = challenge(api, session, enrolled["id"]).json()
    sql(live_server, "update auth.mfa_challenges set ip_address = '10.1.2.3' where id = %s", [chal["id"]])
    code = pyotp.TOTP(enrolled["totp"]["secret"]).now()
    assert error(verify(api, session, enrolled["id"], chal["id"], code))[1] == "mfa_ip_address_mismatch"


def test_challenge_and_verify_from_a_forwarded_link_local_address(api: httpx.Client,
                                                                  live_server: harness.LiveServer) -> None:
    # X-Forwarded-For from the trusted 127.0.0.1 names the client; the challenge keeps its address
    # without the IPv6 zone (an inet has none), and the verify from there matches it.
    session = sign_up(api)
    enrolled = enroll_totp(api, session).json()
    forwarded = {**auth(session), "X-Forwarded-For": "fe80::1%eth0"}
    chal = api.post(f"/factors/{enrolled['id']}/challenge", json={}, headers=forwarded)
    assert chal.status_code == 200, chal.text
    assert sql(live_server, "select host(ip_address) from auth.mfa_challenges where id = %s",
               [chal.json()["id"]]) == [("fe80::1",)]
    code = pyotp.TOTP(enrolled["totp"]["secret"]).now()
    verified = api.post(f"/factors/{enrolled['id']}/verify", json={"challenge_id": chal.json()["id"], "code": code},
                        headers=forwarded)
    assert verified.status_code == 200, verified.text


def test_enroll_bad_input(api: httpx.Client) -> None:
    session = sign_up(api)
    assert error(api.post("/factors", json={"factor_type": "sms"}, headers=auth(session))) == (
        400, "validation_failed", "factor_type needs to be totp, phone, or webauthn")
    assert error(api.post("/factors", json={"factor_type": 1}, headers=auth(session)))[:2] == (400, "bad_json")
    assert error(api.post("/factors", content=b"nope", headers=auth(session)))[:2] == (400, "bad_json")
    assert error(api.post("/factors", json={"factor_type": "phone", "phone": "15555550100"}, headers=auth(session))) == (
        422, "mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone")
    assert error(enroll_totp(api, session, "x" * 256))[:2] == (400, "validation_failed")
    assert error(enroll_totp(api, session, issuer="é" * 250))[:2] == (400, "validation_failed")
    assert error(enroll_totp(api, session, issuer="i" * 256))[:2] == (400, "validation_failed")
    assert api.post("/factors", json={"factor_type": "totp"}).status_code == 401
    bad_token = api.post("/factors", json={"factor_type": "totp"}, headers={"Authorization": "Bearer x.y.z", **NEW_API})
    assert error(bad_token)[:2] == (403, "bad_jwt")


def test_anonymous_users_cannot_use_factors(api: httpx.Client) -> None:
    anonymous = api.post("/signup", json={}).json()
    assert error(enroll_totp(api, anonymous)) == (
        403, "no_authorization", "Anonymous user not allowed to perform these actions")


def test_a_token_without_a_session_is_refused_not_a_500(api: httpx.Client, live_server: harness.LiveServer) -> None:
    # A token signed by hand for a real user but carrying no session_id: GoTrue answers 500.
    session = sign_up(api)
    handmade = {key: value for key, value in claims(session["access_token"]).items() if key != "session_id"}
    token = jwt.encode(handmade, live_server.settings.jwt_secret, algorithm="HS256")
    response = api.post("/factors", json={"factor_type": "totp"}, headers={"Authorization": f"Bearer {token}", **NEW_API})
    assert error(response) == (
        403, "session_not_found", "A valid session and a registered user are required to enroll a factor")


def test_name_conflict_and_factor_limit(api: httpx.Client) -> None:
    session = sign_up(api)
    assert enroll_totp(api, session, "one").status_code == 200
    assert error(enroll_totp(api, session, "one")) == (
        422, "mfa_factor_name_conflict", 'A factor with the friendly name "one" for this user already exists')
    for n in range(2, 11):
        assert enroll_totp(api, session, f"f{n}").status_code == 200
    assert error(enroll_totp(api, session, "eleventh")) == (
        422, "too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue")


def test_stale_unverified_factors_are_cleared(api: httpx.Client, live_server: harness.LiveServer) -> None:
    session = sign_up(api)
    stale = enroll_totp(api, session, "same").json()["id"]
    sql(live_server, "update auth.mfa_factors set created_at = now() - interval '10 minutes' where id = %s", [stale])
    assert enroll_totp(api, session, "same").status_code == 200
    assert sql(live_server, "select 1 from auth.mfa_factors where id = %s", [stale]) == []


def test_aal_rules_for_enroll_and_unenroll(api: httpx.Client) -> None:
    session, factor_id, _, upgraded = verified_user(api)
    email = session["user"]["email"]
    # A new sign-in starts at aal1 with nextLevel aal2 (a verified factor exists).
    fresh = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).json()
    assert claims(fresh["access_token"])["aal"] == "aal1"
    assert [f["status"] for f in fresh["user"]["factors"]] == ["verified"]
    assert error(enroll_totp(api, fresh, "second")) == (403, "insufficient_aal", "AAL2 required to enroll a new factor")
    assert error(api.delete(f"/factors/{factor_id}", headers=auth(fresh))) == (
        422, "insufficient_aal", "AAL2 required to unenroll verified factor")
    # At aal2: enroll a second factor, unenroll the unverified one, then the verified one.
    second = enroll_totp(api, upgraded, "second")
    assert second.status_code == 200
    assert api.delete(f"/factors/{second.json()['id']}", headers=auth(fresh)).json() == {"id": second.json()["id"]}
    assert api.delete(f"/factors/{factor_id}", headers=auth(upgraded)).json() == {"id": factor_id}
    # The session falls back to aal1 without the factor's method.
    after = refresh(api, upgraded["refresh_token"]).json()
    assert claims(after["access_token"])["aal"] == "aal1"
    assert [entry["method"] for entry in claims(after["access_token"])["amr"]] == ["password"]
    assert "factors" not in after["user"]


def test_verify_ends_the_users_aal1_sessions(api: httpx.Client) -> None:
    email = new_email("devices")
    session = sign_up(api, email)
    other = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"}).json()
    enrolled = enroll_totp(api, session).json()
    chal = challenge(api, session, enrolled["id"]).json()
    upgraded = verify(api, session, enrolled["id"], chal["id"], pyotp.TOTP(enrolled["totp"]["secret"]).now()).json()
    assert error(refresh(api, other["refresh_token"]))[1] == "refresh_token_not_found"
    assert refresh(api, upgraded["refresh_token"]).status_code == 200


def test_verify_removes_other_unverified_factors_of_the_type(api: httpx.Client) -> None:
    session = sign_up(api)
    first = enroll_totp(api, session, "a").json()
    enroll_totp(api, session, "b")
    chal = challenge(api, session, first["id"]).json()
    upgraded = verify(api, session, first["id"], chal["id"], pyotp.TOTP(first["totp"]["secret"]).now()).json()
    me = api.get("/user", headers=auth(upgraded)).json()
    assert [(f["friendly_name"], f["status"]) for f in me["factors"]] == [("a", "verified")]


# -- admin -----------------------------------------------------------------------------------


def test_admin_lists_updates_and_deletes_factors(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    session, factor_id, _, upgraded = verified_user(api)
    user_id = session["user"]["id"]
    listed = api.get(f"/admin/users/{user_id}/factors", headers=admin_headers)
    assert listed.status_code == 200
    assert [(f["id"], f["status"], f["factor_type"], f["friendly_name"]) for f in listed.json()] == [
        (factor_id, "verified", "totp", "phone app")]
    assert set(listed.json()[0]) == {"id", "created_at", "updated_at", "status", "friendly_name", "factor_type",
                                     "phone", "last_challenged_at"}
    renamed = api.put(f"/admin/users/{user_id}/factors/{factor_id}", json={"friendly_name": "renamed"},
                      headers=admin_headers)
    assert renamed.status_code == 200 and renamed.json()["friendly_name"] == "renamed"
    deleted = api.delete(f"/admin/users/{user_id}/factors/{factor_id}", headers=admin_headers)
    assert deleted.status_code == 200 and deleted.json()["id"] == factor_id
    assert api.get(f"/admin/users/{user_id}/factors", headers=admin_headers).json() == []
    after = refresh(api, upgraded["refresh_token"]).json()
    assert claims(after["access_token"])["aal"] == "aal1"


def test_admin_factor_bad_input(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    owner = sign_up(api)
    factor_id = enroll_totp(api, owner, "kept").json()["id"]
    enroll_totp(api, owner, "taken")
    other = sign_up(api)
    user_id = owner["user"]["id"]
    headers = {**admin_headers, **NEW_API}
    assert error(api.get(f"/admin/users/{user_id}/factors", headers=auth(owner)))[:2] == (403, "not_admin")
    assert error(api.get(f"/admin/users/{uuid.uuid4()}/factors", headers=headers)) == (404, "user_not_found", "User not found")
    assert error(api.get("/admin/users/nope/factors", headers=headers)) == (404, "validation_failed", "user_id must be an UUID")
    # Another user's factor through this user's path is not found.
    assert error(api.delete(f"/admin/users/{other['user']['id']}/factors/{factor_id}", headers=headers)) == (
        404, "mfa_factor_not_found", "Factor not found")
    assert error(api.put(f"/admin/users/{user_id}/factors/{factor_id}", json={"friendly_name": "taken"},
                         headers=headers))[:2] == (422, "mfa_factor_name_conflict")
    assert error(api.put(f"/admin/users/{user_id}/factors/{factor_id}", json={"friendly_name": 5},
                         headers=headers))[:2] == (400, "bad_json")
    assert error(api.put(f"/admin/users/{user_id}/factors/nope", json={}, headers=headers)) == (
        404, "validation_failed", "factor_id must be an UUID")
    assert api.put(f"/admin/users/{user_id}/factors/{factor_id}", json={}, headers=headers).json()["friendly_name"] == "kept"


# -- settings --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gated_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_MFA_TOTP_VERIFY_ENABLED": "false", "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true",
        "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true", "GOTRUE_SMS_TEST_OTP": "15555550100:123456",
        "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_AUTOCONFIRM": "true",
    }) as server:
        yield server


@pytest.fixture(scope="module")
def gated(gated_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(gated_server) as client:
        yield client


def test_totp_verify_disabled(gated: httpx.Client) -> None:
    session = sign_up(gated)
    factor_id = enroll_totp(gated, session).json()["id"]
    disabled = (422, "mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP")
    assert error(challenge(gated, session, factor_id)) == disabled
    assert error(verify(gated, session, factor_id, str(uuid.uuid4()), "123456")) == disabled


def enroll_phone(api: httpx.Client, session: dict[str, Any], phone: Any, name: str = "") -> httpx.Response:
    return api.post("/factors", json={"factor_type": "phone", "phone": phone, "friendly_name": name}, headers=auth(session))


def test_a_user_without_an_email_cannot_enroll_totp(gated: httpx.Client) -> None:
    # A phone-only user: no account name for the otpauth URI (GoTrue's 500, a 422 here).
    phone = f"1555{uuid.uuid4().int % 10**7:07d}"
    signed_up = gated.post("/signup", json={"phone": phone, "password": "secret-pass"})
    assert signed_up.status_code == 200, signed_up.text
    assert error(enroll_totp(gated, signed_up.json())) == (422, "validation_failed", "Error generating QR Code")


def test_phone_factor_with_a_test_number(gated: httpx.Client) -> None:
    session = sign_up(gated)
    enrolled = enroll_phone(gated, session, "+1 555 555 0100", "mobile")
    assert enrolled.status_code == 200, enrolled.text
    factor = enrolled.json()
    assert factor == {"id": factor["id"], "type": "phone", "friendly_name": "mobile", "phone": "+1 555 555 0100"}
    chal = challenge(gated, session, factor["id"])
    assert chal.status_code == 200, chal.text
    assert set(chal.json()) == {"id", "type", "expires_at"} and chal.json()["type"] == "phone"
    assert error(verify(gated, session, factor["id"], chal.json()["id"], "654321")) == (
        422, "mfa_verification_failed", "Invalid MFA Phone code entered")
    upgraded = verify(gated, session, factor["id"], chal.json()["id"], "123456")
    assert upgraded.status_code == 200, upgraded.text
    token = claims(upgraded.json()["access_token"])
    assert token["aal"] == "aal2" and [e["method"] for e in token["amr"]] == ["mfa/phone", "password"]
    listed = upgraded.json()["user"]["factors"]
    assert [(f["factor_type"], f["phone"], f["status"]) for f in listed] == [("phone", "15555550100", "verified")]
    # A verified factor for the number blocks another enrollment of it.
    assert error(enroll_phone(gated, upgraded.json(), "15555550100", "again")) == (
        422, "mfa_verified_factor_exists",
        "A verified phone factor already exists, unenroll the existing factor to continue")


def test_phone_challenge_sends_an_sms_once_a_minute(gated: httpx.Client, gated_server: harness.LiveServer) -> None:
    session = sign_up(gated)
    factor_id = enroll_phone(gated, session, "+33612345678").json()["id"]
    chal = challenge(gated, session, factor_id)
    assert chal.status_code == 200, chal.text
    rows = sql(gated_server, "select otp, kind from auth.dev_inbox where recipient = '33612345678' order by id desc limit 1", [])
    assert rows and rows[0][1] == "sms"
    status, code, message = error(challenge(gated, session, factor_id))
    assert (status, code) == (429, "over_sms_send_rate_limit")
    assert message.startswith("For security purposes, you can only request this after ")
    assert verify(gated, session, factor_id, chal.json()["id"], rows[0][0]).status_code == 200


def test_phone_factor_bad_input(gated: httpx.Client) -> None:
    session = sign_up(gated)
    assert error(enroll_phone(gated, session, "")) == (400, "validation_failed", "Phone number required to enroll Phone factor")
    for bad in ("+0123", "1", "1" * 16, "+1-555-555", "١٢٣٤٥٦٧"):
        assert error(enroll_phone(gated, session, bad)) == (
            400, "validation_failed", "Invalid phone number format (E.164 required)")
    assert error(enroll_phone(gated, session, 15555550100))[:2] == (400, "bad_json")
    # An unverified factor for the same number is replaced, not duplicated.
    first = enroll_phone(gated, session, "15555550100", "a").json()["id"]
    second = enroll_phone(gated, session, "15555550100", "b").json()["id"]
    me = gated.get("/user", headers=auth(session)).json()
    assert [f["id"] for f in me["factors"]] == [second] and first != second
    assert error(challenge(gated, session, second, channel="whatsapp"))[:2] == (400, "validation_failed")
    assert error(gated.post(f"/factors/{second}/challenge", content=b"{", headers=auth(session)))[:2] == (400, "bad_json")


def test_challenges_and_verifies_are_rate_limited(database_url: str) -> None:
    with auth_server(database_url, {"SUPALITE_RATE_LIMITS": "true"}) as server, auth_api(server) as api:
        session = sign_up(api)
        factor_id = enroll_totp(api, session).json()["id"]
        assert [challenge(api, session, factor_id).status_code for _ in range(30)] == [200] * 30
        assert error(challenge(api, session, factor_id))[:2] == (429, "over_request_rate_limit")
        # Verifies have their own bucket.
        assert error(verify(api, session, factor_id, str(uuid.uuid4()), "123456"))[1] == "mfa_factor_not_found"


def test_phone_factor_settings(database_url: str) -> None:
    """GOTRUE_MFA_PHONE_OTP_LENGTH, GOTRUE_MFA_PHONE_TEMPLATE and GOTRUE_MFA_PHONE_MAX_FREQUENCY
    shape the phone factor's SMS, apart from the phone provider's GOTRUE_SMS_* ones."""
    with auth_server(database_url, {
        "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true", "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
        "GOTRUE_MFA_PHONE_OTP_LENGTH": "8", "GOTRUE_MFA_PHONE_TEMPLATE": "Your sign-in code: {{ .Code }}.",
        "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "2s", "GOTRUE_SMS_OTP_LENGTH": "6",
    }) as server, auth_api(server) as api:
        session = sign_up(api)
        phone = f"1555{uuid.uuid4().int % 10**7:07d}"
        factor_id = enroll_phone(api, session, "+" + phone).json()["id"]
        first = challenge(api, session, factor_id)
        assert first.status_code == 200, first.text
        [(code, text)] = sql(server, "select otp, text_body from auth.dev_inbox where recipient = %s", [phone])
        assert len(code) == 8 and code.isdigit() and text == f"Your sign-in code: {code}."
        status, code_name, message = error(challenge(api, session, factor_id))
        assert (status, code_name) == (429, "over_sms_send_rate_limit")
        assert message in ("For security purposes, you can only request this after 1 seconds.",
                           "For security purposes, you can only request this after 0 seconds.")
        time.sleep(2.1)
        assert challenge(api, session, factor_id).status_code == 200
