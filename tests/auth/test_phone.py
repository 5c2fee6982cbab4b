"""Phone sign-up and sign-in with SMS codes (server/auth/phone.py, server/auth/sms.py), as GoTrue's
phone provider: E.164 numbers, the dev inbox, the Send SMS hook, test numbers, limits."""

from __future__ import annotations

import base64
import hashlib
import hmac
import http.server
import random
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import psycopg
import pytest

from server.auth.phone_numbers import INVALID_FORMAT
from server.auth.sms import HOOK_RESPONSE_LIMIT, render, signatures
from tests import harness
from tests.auth.conftest import NEW_API, auth_api, auth_server, bearer, new_email, sign_up

TEST_NUMBER = "15555550100"
TEST_CODE = "123456"
HOOK_SECRET = base64.b64encode(b"phone-hook-test-secret-0123456789").decode()
HOOK_TEST_NUMBERS = ("15555550102", "15555550103")  # the hook server's own: the module's servers share a database
PHONE_ENV = {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_TEST_OTP": f"{TEST_NUMBER}:{TEST_CODE}"}


def new_phone() -> str:
    """A fresh E.164 number in GoTrue's stored form (no '+')."""
    return "1555" + "".join(random.choice("0123456789") for _ in range(7))


# Without a server.

def test_standard_webhooks_signature_matches_the_reference_vector() -> None:
    # The Standard Webhooks specification's example (secret, id, timestamp, payload -> signature).
    signed = signatures("v1,whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330,
                        b'{"test": 2432232314}')
    assert signed == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="


def test_sms_template_fills_the_code() -> None:
    assert render("Your code is {{ .Code }}", "042424") == "Your code is 042424"
    assert render("{{.Code}} / {{ .Code }}", "1") == "1 / 1"
    assert render("", "77") == "Your code is 77"


# The phone provider off (the default).

def test_phone_provider_disabled_answers_as_gotrue(api: httpx.Client) -> None:
    phone = new_phone()
    refused = api.post("/signup", json={"phone": phone, "password": "secret-pass"}, headers=NEW_API)
    assert refused.status_code == 400
    assert refused.json() == {"code": "phone_provider_disabled", "message": "Phone signups are disabled"}
    otp = api.post("/otp", json={"phone": phone}, headers=NEW_API)
    assert otp.status_code == 400 and otp.json()["message"] == "Unsupported phone provider"
    login = api.post("/token?grant_type=password", json={"phone": phone, "password": "x"}, headers=NEW_API)
    assert login.status_code == 422 and login.json() == {"code": "phone_provider_disabled",
                                                         "message": "Phone logins are disabled"}
    resend = api.post("/resend", json={"type": "sms", "phone": phone}, headers=NEW_API)
    assert resend.status_code == 400 and resend.json()["message"] == "Phone logins are disabled"
    verify = api.post("/verify", json={"type": "sms", "phone": phone, "token": "123456"}, headers=NEW_API)
    assert verify.status_code == 403 and verify.json()["code"] == "otp_expired"
    # create_user false is checked first, as GoTrue's shouldCreateUser runs before SmsOtp.
    unknown = api.post("/otp", json={"phone": phone, "create_user": False}, headers=NEW_API)
    assert unknown.status_code == 422 and unknown.json()["code"] == "otp_disabled"


# The phone provider on, codes in the dev inbox.

@pytest.fixture(scope="module")
def phone_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, PHONE_ENV) as server:
        yield server


@pytest.fixture(scope="module")
def papi(phone_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(phone_server, new_api=True) as client:
        yield client


def sms_messages(server: harness.LiveServer, phone: str) -> list[dict[str, Any]]:
    response = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"phone": phone})
    assert response.status_code == 200, response.text
    messages: list[dict[str, Any]] = response.json()["messages"]
    return messages


def last_code(server: harness.LiveServer, phone: str) -> str:
    messages = sms_messages(server, phone)
    assert messages, f"no SMS to {phone}"
    return str(messages[0]["OTP"])


def test_sign_up_with_phone_then_verify_the_sms_code(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    phone = new_phone()
    created = papi.post("/signup", json={"phone": "+" + phone, "password": "secret-pass", "data": {"name": "Ana"}})
    assert created.status_code == 200, created.text
    user = created.json()
    assert "access_token" not in user and user["phone"] == phone and user["email"] == ""
    assert "phone_confirmed_at" not in user and user["confirmation_sent_at"]
    assert user["app_metadata"] == {"provider": "phone", "providers": ["phone"]}
    assert [i["provider"] for i in user["identities"]] == ["phone"]
    assert user["user_metadata"] == {"sub": user["id"], "name": "Ana", "email_verified": False, "phone_verified": False}
    [message] = sms_messages(phone_server, phone)
    assert message["Kind"] == "sms" and message["To"][0]["Address"] == phone
    assert re.fullmatch(r"\d{6}", message["OTP"]) and message["Text"] == f"Your code is {message['OTP']}"

    login = papi.post("/token?grant_type=password", json={"phone": phone, "password": "secret-pass"})
    assert login.status_code == 400 and login.json() == {"code": "phone_not_confirmed", "message": "Phone not confirmed"}
    wrong = "000000" if message["OTP"] != "000000" else "111111"
    refused = papi.post("/verify", json={"type": "sms", "phone": phone, "token": wrong})
    assert refused.status_code == 403
    assert refused.json() == {"code": "otp_expired", "message": "Token has expired or is invalid"}

    verified = papi.post("/verify", json={"type": "sms", "phone": "+" + phone, "token": message["OTP"]})
    assert verified.status_code == 200, verified.text
    session = verified.json()
    assert session["user"]["phone"] == phone and session["user"]["phone_confirmed_at"]
    claims = orjson.loads(base64.urlsafe_b64decode(session["access_token"].split(".")[1] + "=="))
    assert claims["phone"] == phone and claims["amr"][0]["method"] == "otp"
    replayed = papi.post("/verify", json={"type": "sms", "phone": phone, "token": message["OTP"]})
    assert replayed.status_code == 403 and replayed.json()["code"] == "otp_expired"

    login = papi.post("/token?grant_type=password", json={"phone": "+" + phone, "password": "secret-pass"})
    assert login.status_code == 200 and login.json()["user"]["id"] == user["id"]
    bad = papi.post("/token?grant_type=password", json={"phone": phone, "password": "not-it"})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid_credentials"
    again = papi.post("/signup", json={"phone": phone, "password": "secret-pass"})
    assert again.status_code == 422 and again.json()["code"] == "user_already_exists"


@pytest.mark.parametrize("bad", ["0123456", "+0123456", "1", "1555abc0100", "+1234567890123456", "1555\n",
                                 "+1-555-555-0100"])
def test_numbers_that_are_not_e164_are_refused_everywhere(papi: httpx.Client, bad: str) -> None:
    expected = {"code": "validation_failed", "message": INVALID_FORMAT}
    for path, body in (("/signup", {"phone": bad, "password": "secret-pass"}), ("/otp", {"phone": bad}),
                       ("/verify", {"type": "sms", "phone": bad, "token": "123456"}),
                       ("/resend", {"type": "sms", "phone": bad})):
        response = papi.post(path, json=body)
        assert (response.status_code, response.json()) == (400, expected), path


def test_wrong_types_and_mixed_identifiers_are_refused(papi: httpx.Client) -> None:
    for path, body in (("/signup", {"phone": 15555550100, "password": "secret-pass"}), ("/otp", {"phone": ["1"]}),
                       ("/verify", {"type": "sms", "phone": {"a": 1}, "token": "1"}),
                       ("/otp", {"phone": "15555550101", "channel": 1})):
        response = papi.post(path, json=body)
        assert response.status_code == 400 and response.json()["code"] == "bad_json", (path, response.text)
    both = papi.post("/otp", json={"phone": new_phone(), "email": new_email()})
    assert both.status_code == 400 and both.json()["code"] == "validation_failed"
    channel = papi.post("/otp", json={"phone": new_phone(), "channel": "whatsapp"})
    assert channel.status_code == 400 and "'whatsapp' is only supported if Twilio" in channel.json()["message"]
    by_hash = papi.post("/verify", json={"type": "sms", "token_hash": "abc"})
    assert by_hash.status_code == 400 and by_hash.json()["code"] == "validation_failed"
    both_tokens = papi.post("/verify", json={"type": "sms", "phone": new_phone(), "token": "1", "token_hash": "2"})
    assert both_tokens.status_code == 400
    assert both_tokens.json()["message"] == "Verify requires either a token or a token hash"
    pkce = papi.post("/signup", json={"phone": new_phone(), "password": "secret-pass", "code_challenge": "x" * 43})
    assert pkce.status_code == 400 and pkce.json()["message"] == "PKCE not supported for phone signups"
    oversize = papi.post("/otp", json={"phone": "1" * 100_000})
    assert oversize.status_code == 400 and oversize.json()["message"] == INVALID_FORMAT


def test_otp_signs_up_then_signs_in(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    phone = new_phone()
    unknown = papi.post("/otp", json={"phone": phone, "create_user": False})
    assert unknown.status_code == 422 and unknown.json()["code"] == "otp_disabled"
    assert papi.post("/otp", json={"phone": phone, "data": {"plan": "free"}}).json() == {}
    first = last_code(phone_server, phone)
    session = papi.post("/verify", json={"type": "sms", "phone": phone, "token": first}).json()
    assert session["user"]["user_metadata"]["plan"] == "free"
    # A confirmed number: the next code signs in (same user, a new code each time).
    assert papi.post("/otp", json={"phone": phone, "create_user": False}).json() == {}
    second = last_code(phone_server, phone)
    assert len(sms_messages(phone_server, phone)) == 2
    again = papi.post("/verify", json={"type": "sms", "phone": phone, "token": second})
    assert again.status_code == 200 and again.json()["user"]["id"] == session["user"]["id"]


def test_expired_code_and_other_users_code_are_refused(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    mine, theirs = new_phone(), new_phone()
    papi.post("/otp", json={"phone": mine})
    papi.post("/otp", json={"phone": theirs})
    their_code = last_code(phone_server, theirs)
    mine_code = last_code(phone_server, mine)
    if their_code != mine_code:
        crossed = papi.post("/verify", json={"type": "sms", "phone": mine, "token": their_code})
        assert crossed.status_code == 403
    with psycopg.connect(phone_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set confirmation_sent_at = now() - interval '61 seconds' where phone = %s", [mine])
    expired = papi.post("/verify", json={"type": "sms", "phone": mine, "token": mine_code})
    assert expired.status_code == 403 and expired.json()["message"] == "Token has expired or is invalid"
    unknown = papi.post("/verify", json={"type": "sms", "phone": new_phone(), "token": "123456"})
    assert unknown.status_code == 403 and unknown.json()["code"] == "otp_expired"


def test_banned_user_cannot_verify(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    phone = new_phone()
    papi.post("/otp", json={"phone": phone})
    with psycopg.connect(phone_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set banned_until = now() + interval '1 day' where phone = %s", [phone])
    banned = papi.post("/verify", json={"type": "sms", "phone": phone, "token": last_code(phone_server, phone)})
    assert banned.status_code == 403 and banned.json()["code"] == "user_banned"


def test_test_number_gets_no_sms_and_its_fixed_code(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    assert papi.post("/otp", json={"phone": "+" + TEST_NUMBER}).json() == {}  # signed up: GoTrue answers {}
    wrong = papi.post("/verify", json={"type": "sms", "phone": TEST_NUMBER, "token": "654321"})
    assert wrong.status_code == 403
    first = papi.post("/verify", json={"type": "sms", "phone": TEST_NUMBER, "token": TEST_CODE})
    assert first.status_code == 200, first.text
    assert papi.post("/otp", json={"phone": TEST_NUMBER}).json() == {"message_id": "test-otp"}
    # The fixed code keeps working, as GoTrue's GetTestOTP does.
    assert papi.post("/verify", json={"type": "sms", "phone": TEST_NUMBER, "token": TEST_CODE}).status_code == 200
    assert sms_messages(phone_server, TEST_NUMBER) == []


def test_resend_sms_replaces_the_code(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    phone = new_phone()
    papi.post("/signup", json={"phone": phone, "password": "secret-pass"})
    old = last_code(phone_server, phone)
    assert papi.post("/resend", json={"type": "sms", "phone": phone}).json() == {}
    new = last_code(phone_server, phone)
    assert len(sms_messages(phone_server, phone)) == 2
    if old != new:
        assert papi.post("/verify", json={"type": "sms", "phone": phone, "token": old}).status_code == 403
    assert papi.post("/verify", json={"type": "sms", "phone": phone, "token": new}).status_code == 200
    # Confirmed, or unknown: nothing to send, the same answer.
    assert papi.post("/resend", json={"type": "sms", "phone": phone}).json() == {}
    assert papi.post("/resend", json={"type": "sms", "phone": new_phone()}).json() == {}
    assert len(sms_messages(phone_server, phone)) == 2
    missing = papi.post("/resend", json={"type": "sms"})
    assert missing.status_code == 400 and missing.json()["message"] == "Type provided requires a phone number"


def test_update_user_phone_sends_a_phone_change_code(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    session = sign_up(papi, new_email("phone-change"))
    phone = new_phone()
    invalid = papi.put("/user", json={"phone": "12-34"}, headers=bearer(session))
    assert invalid.status_code == 400 and invalid.json()["message"] == INVALID_FORMAT
    changed = papi.put("/user", json={"phone": "+" + phone}, headers=bearer(session))
    assert changed.status_code == 200, changed.text
    assert changed.json()["new_phone"] == phone and changed.json()["phone_change_sent_at"]
    assert changed.json()["phone"] == ""
    code = last_code(phone_server, phone)
    # A resend by the user's address goes to the pending number.
    assert papi.post("/resend", json={"type": "phone_change", "email": session["user"]["email"]}).json() == {}
    code = last_code(phone_server, phone)
    wrong_type = papi.post("/verify", json={"type": "sms", "phone": phone, "token": code})
    assert wrong_type.status_code == 403
    verified = papi.post("/verify", json={"type": "phone_change", "phone": phone, "token": code})
    assert verified.status_code == 200, verified.text
    user = verified.json()["user"]
    assert user["phone"] == phone and user["phone_confirmed_at"] and "new_phone" not in user
    assert user["app_metadata"]["providers"] == ["email", "phone"] and user["app_metadata"]["provider"] == "email"
    [identity] = [i for i in user["identities"] if i["provider"] == "phone"]
    assert identity["identity_data"]["phone"] == phone and identity["identity_data"]["phone_verified"] is True
    replay = papi.post("/verify", json={"type": "phone_change", "phone": phone, "token": code})
    assert replay.status_code == 403

    other = sign_up(papi, new_email("phone-taken"))
    taken = papi.put("/user", json={"phone": phone}, headers=bearer(other))
    assert taken.status_code == 422
    assert taken.json() == {"code": "phone_exists", "message": "A user with this phone number has already been registered"}
    # The user's own number again: nothing to change, no SMS.
    before = len(sms_messages(phone_server, phone))
    same = papi.put("/user", json={"phone": phone}, headers=bearer(verified.json()))
    assert same.status_code == 200 and len(sms_messages(phone_server, phone)) == before


def test_resend_phone_change_by_current_number(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    phone, next_phone = new_phone(), new_phone()
    papi.post("/otp", json={"phone": phone})
    session = papi.post("/verify", json={"type": "sms", "phone": phone, "token": last_code(phone_server, phone)}).json()
    assert papi.put("/user", json={"phone": next_phone}, headers=bearer(session)).status_code == 200
    assert papi.post("/resend", json={"type": "phone_change", "phone": phone}).json() == {}
    assert len(sms_messages(phone_server, next_phone)) == 2
    code = last_code(phone_server, next_phone)
    done = papi.post("/verify", json={"type": "phone_change", "phone": next_phone, "token": code})
    assert done.status_code == 200 and done.json()["user"]["phone"] == next_phone


def test_anonymous_user_becomes_permanent_with_a_phone(phone_server: harness.LiveServer, papi: httpx.Client) -> None:
    anonymous = papi.post("/signup", json={}).json()
    assert anonymous["user"]["is_anonymous"] is True
    phone = new_phone()
    assert papi.put("/user", json={"phone": phone}, headers=bearer(anonymous)).status_code == 200
    verified = papi.post("/verify", json={"type": "phone_change", "phone": phone,
                                          "token": last_code(phone_server, phone)})
    assert verified.status_code == 200
    user = verified.json()["user"]
    assert user["is_anonymous"] is False and user["app_metadata"]["providers"] == ["phone"]
    assert user["app_metadata"]["provider"] == "phone"


def test_inbox_phone_filter_refuses_nothing_and_leaks_nothing(phone_server: harness.LiveServer) -> None:
    response = httpx.get(f"{phone_server.url}/inbox/api/v1/messages", params={"phone": "+1 999 000"})
    assert response.status_code == 200 and response.json()["messages"] == []


# Autoconfirmed phone sign-ups.

@pytest.fixture(scope="module")
def autoconfirm_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {**PHONE_ENV, "GOTRUE_SMS_AUTOCONFIRM": "true"}) as server:
        yield server


def test_autoconfirm_signs_in_at_sign_up_and_changes_at_once(autoconfirm_server: harness.LiveServer) -> None:
    with auth_api(autoconfirm_server, new_api=True) as api:
        phone = new_phone()
        session = api.post("/signup", json={"phone": phone, "password": "secret-pass"})
        assert session.status_code == 200 and session.json()["user"]["phone_confirmed_at"]
        assert sms_messages(autoconfirm_server, phone) == []
        assert api.post("/token?grant_type=password", json={"phone": phone, "password": "secret-pass"}).status_code == 200
        next_phone = new_phone()
        changed = api.put("/user", json={"phone": next_phone}, headers=bearer(session.json()))
        assert changed.status_code == 200 and changed.json()["phone"] == next_phone
        assert sms_messages(autoconfirm_server, next_phone) == []
        # /otp for a new number: signed up and confirmed, then sent a code to sign in with.
        other = new_phone()
        assert api.post("/otp", json={"phone": other}).json() == {}
        assert len(sms_messages(autoconfirm_server, other)) == 1


# The Send SMS hook, with the rate limits on.

class HookReceiver:
    """A local HTTP endpoint standing in for an SMS provider's Send SMS hook. The number decides
    the answer: ...99 a 500, ...98 a hook error object, ...97 the connection dropped, ...96 text
    instead of JSON, ...95 JSON over the size limit."""

    def __init__(self) -> None:
        self.requests: list[tuple[dict[str, str], bytes]] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                receiver.requests.append(({k.lower(): v for k, v in self.headers.items()}, body))
                phone = orjson.loads(body)["sms"]["phone"]
                if phone.endswith("97"):
                    self.close_connection = True
                    self.connection.shutdown(2)
                    return
                if phone.endswith("99"):
                    self.send_response(500)
                    self.end_headers()
                    return
                answer = b'{"error": {"http_code": 422, "message": "number blocked"}}' if phone.endswith("98") else b"{}"
                if phone.endswith("95"):
                    answer = b'{"padding": "' + b"x" * HOOK_RESPONSE_LIMIT + b'"}'
                self.send_response(200)
                self.send_header("Content-Type", "text/plain" if phone.endswith("96") else "application/json")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/send-sms"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def for_phone(self, phone: str) -> list[tuple[dict[str, str], bytes]]:
        return [(h, b) for h, b in self.requests if orjson.loads(b)["sms"]["phone"] == phone]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def hook() -> Iterator[HookReceiver]:
    receiver = HookReceiver()
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def hook_server(database_url: str, hook: HookReceiver) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
        "GOTRUE_SMS_TEST_OTP": f"{HOOK_TEST_NUMBERS[0]}:{TEST_CODE},{HOOK_TEST_NUMBERS[1]}:{TEST_CODE}",
        "GOTRUE_SMS_PROVIDER": "hook", "GOTRUE_HOOK_SEND_SMS_URI": hook.url,
        "GOTRUE_HOOK_SEND_SMS_SECRETS": f"v1,whsec_{HOOK_SECRET}", "SUPALITE_RATE_LIMITS": "true",
        "SUPALITE_AUTH_RATE_LIMIT_SMS_SENT": "9",
    }) as server:
        yield server


@pytest.fixture(scope="module")
def hapi(hook_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(hook_server, new_api=True) as client:
        yield client


def test_hook_receives_the_signed_payload(hapi: httpx.Client, hook: HookReceiver) -> None:
    phone = new_phone()[:-2] + "10"
    created = hapi.post("/signup", json={"phone": phone, "password": "secret-pass"})
    assert created.status_code == 200, created.text
    [(headers, body)] = hook.for_phone(phone)
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(base64.b64decode(HOOK_SECRET), signed, hashlib.sha256).digest()).decode()
    assert headers["webhook-signature"] == f"v1,{expected}"
    assert headers["content-type"] == "application/json"
    payload = orjson.loads(body)
    assert payload["metadata"]["name"] == "send-sms" and payload["metadata"]["ip_address"] == "127.0.0.1"
    assert payload["user"]["id"] == created.json()["id"] and payload["user"]["phone"] == phone
    assert payload["sms"]["phone"] == phone and re.fullmatch(r"\d{6}", payload["sms"]["otp"])
    verified = hapi.post("/verify", json={"type": "sms", "phone": phone, "token": payload["sms"]["otp"]})
    assert verified.status_code == 200, verified.text
    # Through the hook any channel goes: the hook decides.
    assert hapi.post("/otp", json={"phone": new_phone()[:-2] + "11", "channel": "whatsapp"}).status_code == 200


def test_one_sms_a_minute_per_number(hapi: httpx.Client, hook: HookReceiver) -> None:
    phone = new_phone()[:-2] + "12"
    assert hapi.post("/otp", json={"phone": phone}).status_code == 200
    again = hapi.post("/otp", json={"phone": phone})
    assert again.status_code == 429 and again.json()["code"] == "over_sms_send_rate_limit"
    assert re.fullmatch(r"For security purposes, you can only request this after \d+ seconds\.", again.json()["message"])
    resend = hapi.post("/resend", json={"type": "sms", "phone": phone})
    assert resend.status_code == 429
    assert len(hook.for_phone(phone)) == 1
    # Test numbers are held to the same frequency, as GoTrue does, and never reach the hook.
    assert hapi.post("/otp", json={"phone": HOOK_TEST_NUMBERS[0]}).status_code == 200
    assert hapi.post("/otp", json={"phone": HOOK_TEST_NUMBERS[0]}).status_code == 429
    assert hook.for_phone(HOOK_TEST_NUMBERS[0]) == []


def test_hook_failures_answer_as_gotrue_and_write_nothing(hook_server: harness.LiveServer, hapi: httpx.Client,
                                                          hook: HookReceiver) -> None:
    failing = new_phone()[:-2] + "99"
    failed = hapi.post("/signup", json={"phone": failing, "password": "secret-pass"})
    assert failed.status_code == 500
    assert failed.json() == {"code": "unexpected_failure", "message": "Error running hook URI"}
    blocked = hapi.post("/otp", json={"phone": new_phone()[:-2] + "98"})
    assert blocked.status_code == 422 and blocked.json()["message"] == "number blocked"
    dropped = new_phone()[:-2] + "97"
    gone = hapi.post("/otp", json={"phone": dropped})
    assert gone.status_code == 500 and gone.json()["message"] == "Error running hook URI"
    assert len(hook.for_phone(dropped)) == 3  # GoTrue's three attempts
    for suffix in ("96", "95"):  # text instead of JSON, JSON over the size limit
        answered = hapi.post("/otp", json={"phone": new_phone()[:-2] + suffix})
        assert answered.status_code == 500 and answered.json()["message"] == "Error running hook URI"
    with psycopg.connect(hook_server.database_url, autocommit=True) as conn:
        rows = conn.execute("select count(*) from auth.users where phone = any(%s)", [[failing, dropped]]).fetchone()
    assert rows == (0,)
    # The client learns nothing more; the log tells the operator which hook failed and why.
    log = hook_server.log()
    for detail in ("Unexpected status code returned from hook: 500 (unexpected_failure)",
                   "Failed to reach hook after maximum retries (hook_timeout_after_retry)",
                   "Invalid JSON response. Received content-type: text/plain (hook_payload_invalid_content_type)",
                   f"Payload size exceeded size limit of {HOOK_RESPONSE_LIMIT} bytes (hook_payload_over_size_limit)"):
        assert f"the send SMS hook {hook.url} failed: {detail}" in log, log


def test_sms_rate_limit_spares_test_numbers(hapi: httpx.Client) -> None:
    # SUPALITE_AUTH_RATE_LIMIT_SMS_SENT=9 for the whole server: the earlier tests sent some.
    statuses = [hapi.post("/otp", json={"phone": new_phone()[:-2] + "20"}).status_code for _ in range(8)]
    assert 429 in statuses
    refused = hapi.post("/otp", json={"phone": new_phone()[:-2] + "21"})
    assert refused.status_code == 429
    assert refused.json() == {"code": "over_sms_send_rate_limit", "message": "SMS rate limit exceeded"}
    # A test number sends no SMS, so the limit does not apply to it.
    assert hapi.post("/otp", json={"phone": HOOK_TEST_NUMBERS[1]}).status_code == 200
    verified = hapi.post("/verify", json={"type": "sms", "phone": HOOK_TEST_NUMBERS[1], "token": TEST_CODE})
    assert verified.status_code == 200


# Sign-ups refused, and repeated sign-ups that must not reveal a number is taken.

def test_disabled_signups_refuse_new_numbers_but_not_known_ones(database_url: str) -> None:
    known = new_phone()
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("insert into auth.users (instance_id, id, aud, role, phone, phone_confirmed_at, raw_app_meta_data,"
                     " raw_user_meta_data, created_at, updated_at) values ('00000000-0000-0000-0000-000000000000',"
                     " gen_random_uuid(), 'authenticated', 'authenticated', %s, now(), '{}', '{}', now(), now())", [known])
    with auth_server(database_url, {**PHONE_ENV, "GOTRUE_DISABLE_SIGNUP": "true"}) as server, \
            auth_api(server, new_api=True) as api:
        for path, body in (("/otp", {"phone": new_phone()}), ("/signup", {"phone": new_phone(), "password": "secret-pass"})):
            refused = api.post(path, json=body)
            assert refused.status_code == 422 and refused.json()["code"] == "signup_disabled", path
        assert api.post("/otp", json={"phone": known}).json() == {}
        assert len(sms_messages(server, known)) == 1


def test_repeated_sign_up_without_autoconfirm_is_obfuscated(database_url: str) -> None:
    with auth_server(database_url, {**PHONE_ENV, "GOTRUE_MAILER_AUTOCONFIRM": "false"}) as server, \
            auth_api(server, new_api=True) as api:
        phone = new_phone()
        first = api.post("/signup", json={"phone": phone, "password": "secret-pass"}).json()
        # Unconfirmed: signing up again sends a new code to the same user, unchanged; the caller
        # gets an answer without the account's data (GoTrue answers the account itself).
        again = api.post("/signup", json={"phone": phone, "password": "other-pass", "data": {"x": 1}})
        assert again.status_code == 200 and again.json()["id"] != first["id"], again.text
        assert again.json()["user_metadata"] == {"x": 1} and len(sms_messages(server, phone)) == 2
        with psycopg.connect(database_url) as conn:
            [(kept,)] = conn.execute("select raw_user_meta_data from auth.users where id = %s", [first["id"]]).fetchall()
            assert "x" not in kept
        api.post("/verify", json={"type": "sms", "phone": phone, "token": last_code(server, phone)})
        # What only a real account has (an MFA factor, a recovery sent) is not in the answer either.
        with psycopg.connect(database_url, autocommit=True) as conn:
            conn.execute("update auth.users set recovery_sent_at = now() where id = %s", [first["id"]])
            conn.execute("insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at,"
                         " updated_at) values (gen_random_uuid(), %s, 'my phone', 'totp', 'verified', now(), now())",
                         [first["id"]])
        repeated = api.post("/signup", json={"phone": phone, "password": "secret-pass", "data": {"y": 2}})
        assert repeated.status_code == 200
        fake = repeated.json()
        assert fake["id"] != first["id"] and fake["user_metadata"] == {"y": 2} and fake["identities"] == []
        assert fake["phone"] == phone and "phone_confirmed_at" not in fake
        assert "factors" not in fake and "recovery_sent_at" not in fake
        assert len(sms_messages(server, phone)) == 2
