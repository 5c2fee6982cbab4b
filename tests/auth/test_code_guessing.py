"""Guessing one-time codes from many addresses: a pending code, nonce or MFA challenge dies
after five wrong tries whatever the client's address (the user then asks for a new one), and
wrong TOTP codes are bounded per factor across challenges. Each test makes the wrong tries
from addresses of their own (X-Forwarded-For, trusted from 127.0.0.1), then the right code:
refused with the answer a wrong code gets; then a new code (or challenge) works."""

from __future__ import annotations

import itertools
import random
import time
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import psycopg
import pyotp
import pytest

from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_api, auth_server, new_email

WRONG_TRIES = 5  # server.auth.wrong_codes.MAX_WRONG_CODES, as docs/configuration.md documents it
PASSWORD = "secret-pass"
EXPIRED = (403, "otp_expired", "Token has expired or is invalid")
_addresses = (f"198.51.{n // 250}.{n % 250 + 1}" for n in itertools.count())


def elsewhere() -> dict[str, str]:
    """Headers of a request from an address no request has come from yet."""
    return {"X-Forwarded-For": next(_addresses), **NEW_API}


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
        "GOTRUE_MFA_PHONE_ENROLL_ENABLED": "true", "GOTRUE_MFA_PHONE_VERIFY_ENABLED": "true",
        "GOTRUE_MFA_PHONE_MAX_FREQUENCY": "1s",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


@pytest.fixture(scope="module")
def admin(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True, headers=admin_headers_of(server)) as client:
        yield client


def sql(server: harness.LiveServer, query: str, params: list[Any]) -> list[tuple[Any, ...]]:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        cur = conn.execute(query, params)
        return cur.fetchall() if cur.description else []


def answer(response: httpx.Response) -> tuple[int, str, str]:
    body = response.json()
    return response.status_code, body.get("code", ""), body.get("message", "")


def other_than(code: str, n: int) -> str:
    """The n-th code of the code's length that is not `code`."""
    wrong = str((int(code) + 1 + n) % 10 ** len(code)).zfill(len(code))
    return wrong if wrong != code else str((int(code) + 7 + n) % 10 ** len(code)).zfill(len(code))


def new_phone() -> str:
    return "1555" + "".join(random.choice("0123456789") for _ in range(7))


def mailed_code(server: harness.LiveServer, email: str) -> str:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    assert messages, f"no mail to {email}"
    return str(messages[0]["OTP"])


def texted_code(server: harness.LiveServer, phone: str) -> str:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"phone": phone}).json()["messages"]
    assert messages, f"no SMS to {phone}"
    return str(messages[0]["OTP"])


def bearer(session: dict[str, Any], headers: dict[str, str] | None = None) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}", **(headers or NEW_API)}


def confirmed_user(api: httpx.Client, admin: httpx.Client, email: str | None = None) -> dict[str, Any]:
    """A confirmed e-mail user, signed in with the password: the session."""
    email = email or new_email("guess")
    created = admin.post("/admin/users", json={"email": email, "password": PASSWORD, "email_confirm": True})
    assert created.status_code == 200, created.text
    session = api.post("/token?grant_type=password", json={"email": email, "password": PASSWORD})
    assert session.status_code == 200, session.text
    return session.json()


# -- /verify: codes sent by mail -------------------------------------------------------------

def _signup(api: httpx.Client, admin: httpx.Client, email: str) -> Callable[[], None]:
    assert api.post("/signup", json={"email": email, "password": PASSWORD}).status_code == 200
    return lambda: api.post("/resend", json={"type": "signup", "email": email}).raise_for_status() and None


def _invite(api: httpx.Client, admin: httpx.Client, email: str) -> Callable[[], None]:
    def send() -> None:
        admin.post("/invite", json={"email": email}).raise_for_status()
    send()
    return send


def _confirmed(path: str, body: Callable[[str], dict[str, Any]]) -> Callable[[httpx.Client, httpx.Client, str],
                                                                            Callable[[], None]]:
    def start(api: httpx.Client, admin: httpx.Client, email: str) -> Callable[[], None]:
        confirmed_user(api, admin, email)

        def send() -> None:
            api.post(path, json=body(email)).raise_for_status()
        send()
        return send
    return start


def _email_change(api: httpx.Client, admin: httpx.Client, email: str) -> Callable[[], None]:
    session = confirmed_user(api, admin)

    def send() -> None:
        api.put("/user", json={"email": email}, headers=bearer(session)).raise_for_status()
    send()
    return send


MAILED = {
    "signup": _signup,
    "invite": _invite,
    "magiclink": _confirmed("/magiclink", lambda email: {"email": email}),
    "email": _confirmed("/otp", lambda email: {"email": email, "create_user": False}),
    "recovery": _confirmed("/recover", lambda email: {"email": email}),
    "email_change": _email_change,
}


@pytest.mark.parametrize("kind", list(MAILED))
def test_a_mailed_code_dies_after_five_wrong_tries(server: harness.LiveServer, api: httpx.Client,
                                                   admin: httpx.Client, kind: str) -> None:
    email = new_email(f"guess-{kind.replace('_', '-')}")
    send_again = MAILED[kind](api, admin, email)
    code = mailed_code(server, email)
    for n in range(WRONG_TRIES):
        tried = api.post("/verify", json={"type": kind, "email": email, "token": other_than(code, n)},
                         headers=elsewhere())
        assert answer(tried) == EXPIRED
    right = api.post("/verify", json={"type": kind, "email": email, "token": code}, headers=elsewhere())
    assert answer(right) == EXPIRED, "the right code after five wrong ones must be refused as a wrong one"
    # A new code works.
    send_again()
    fresh = mailed_code(server, email)
    verified = api.post("/verify", json={"type": kind, "email": email, "token": fresh}, headers=elsewhere())
    assert verified.status_code == 200, verified.text
    assert verified.json()["access_token"]


def test_fewer_wrong_tries_leave_the_code_alive(server: harness.LiveServer, api: httpx.Client,
                                                admin: httpx.Client) -> None:
    email = new_email("guess-few")
    _confirmed("/otp", lambda e: {"email": e, "create_user": False})(api, admin, email)
    code = mailed_code(server, email)
    for n in range(WRONG_TRIES - 1):
        assert answer(api.post("/verify", json={"type": "email", "email": email, "token": other_than(code, n)},
                               headers=elsewhere())) == EXPIRED
    assert api.post("/verify", json={"type": "email", "email": email, "token": code}).status_code == 200


# -- /verify: codes sent by SMS ----------------------------------------------------------------

def test_an_sms_code_dies_after_five_wrong_tries(server: harness.LiveServer, api: httpx.Client) -> None:
    phone = new_phone()
    assert api.post("/otp", json={"phone": phone}).status_code == 200
    code = texted_code(server, phone)
    for n in range(WRONG_TRIES):
        assert answer(api.post("/verify", json={"type": "sms", "phone": phone, "token": other_than(code, n)},
                               headers=elsewhere())) == EXPIRED
    assert answer(api.post("/verify", json={"type": "sms", "phone": phone, "token": code},
                           headers=elsewhere())) == EXPIRED
    assert api.post("/otp", json={"phone": phone}).status_code == 200
    verified = api.post("/verify", json={"type": "sms", "phone": phone, "token": texted_code(server, phone)})
    assert verified.status_code == 200, verified.text


def test_a_phone_change_code_dies_after_five_wrong_tries(server: harness.LiveServer, api: httpx.Client,
                                                         admin: httpx.Client) -> None:
    session = confirmed_user(api, admin)
    phone = new_phone()
    assert api.put("/user", json={"phone": phone}, headers=bearer(session)).status_code == 200
    code = texted_code(server, phone)
    for n in range(WRONG_TRIES):
        assert answer(api.post("/verify", json={"type": "phone_change", "phone": phone,
                                                "token": other_than(code, n)}, headers=elsewhere())) == EXPIRED
    assert answer(api.post("/verify", json={"type": "phone_change", "phone": phone, "token": code},
                           headers=elsewhere())) == EXPIRED
    assert api.post("/resend", json={"type": "phone_change", "email": session["user"]["email"]}).json() == {}
    verified = api.post("/verify", json={"type": "phone_change", "phone": phone,
                                         "token": texted_code(server, phone)})
    assert verified.status_code == 200, verified.text
    assert verified.json()["user"]["phone"] == phone


# -- the reauthentication nonce of PUT /user ---------------------------------------------------

def test_a_reauthentication_nonce_dies_after_five_wrong_tries(server: harness.LiveServer, api: httpx.Client,
                                                              admin: httpx.Client) -> None:
    session = confirmed_user(api, admin)
    email = session["user"]["email"]
    sql(server, "update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s",
        [session["user"]["id"]])
    assert api.get("/reauthenticate", headers=bearer(session)).status_code == 200
    nonce = mailed_code(server, email)
    invalid = (422, "reauthentication_not_valid", "Nonce has expired or is invalid")
    for n in range(WRONG_TRIES):
        assert answer(api.put("/user", json={"password": "second-pass", "nonce": other_than(nonce, n)},
                              headers=bearer(session, elsewhere()))) == invalid
    assert answer(api.put("/user", json={"password": "second-pass", "nonce": nonce},
                          headers=bearer(session, elsewhere()))) == invalid
    assert api.post("/token?grant_type=password", json={"email": email, "password": PASSWORD}).status_code == 200
    # A new nonce works.
    assert api.get("/reauthenticate", headers=bearer(session)).status_code == 200
    changed = api.put("/user", json={"password": "second-pass", "nonce": mailed_code(server, email)},
                      headers=bearer(session))
    assert changed.status_code == 200, changed.text


# -- MFA challenges ------------------------------------------------------------------------------

def totp_user(api: httpx.Client, admin: httpx.Client) -> tuple[dict[str, Any], str, pyotp.TOTP]:
    """A user with a verified TOTP factor (verified with the previous step's code, so that this
    step's and the next are free): (a new aal1 session, the factor id, its TOTP)."""
    session = confirmed_user(api, admin)
    factor = api.post("/factors", json={"factor_type": "totp"}, headers=bearer(session)).json()
    totp = pyotp.TOTP(factor["totp"]["secret"])
    chal = api.post(f"/factors/{factor['id']}/challenge", headers=bearer(session)).json()
    verified = api.post(f"/factors/{factor['id']}/verify", headers=bearer(session),
                        json={"challenge_id": chal["id"], "code": totp.at(time.time() - 30)})
    assert verified.status_code == 200, verified.text
    fresh = api.post("/token?grant_type=password", json={"email": session["user"]["email"], "password": PASSWORD})
    return fresh.json(), factor["id"], totp


def mfa_challenge(api: httpx.Client, session: dict[str, Any], factor_id: str, headers: dict[str, str],
                  **body: Any) -> str:
    response = api.post(f"/factors/{factor_id}/challenge", json=body, headers=bearer(session, headers))
    assert response.status_code == 200, response.text
    return str(response.json()["id"])


def mfa_verify(api: httpx.Client, session: dict[str, Any], factor_id: str, challenge_id: str, code: str,
               headers: dict[str, str]) -> httpx.Response:
    return api.post(f"/factors/{factor_id}/verify", json={"challenge_id": challenge_id, "code": code},
                    headers=bearer(session, headers))


CHALLENGE_GONE = (422, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
WRONG_TOTP = (422, "mfa_verification_failed", "Invalid TOTP code entered")
TOTP_LOCKED = (429, "over_request_rate_limit", "Too many failed verification attempts, try again later")


def test_a_totp_challenge_dies_after_five_wrong_codes(server: harness.LiveServer, api: httpx.Client,
                                                      admin: httpx.Client) -> None:
    session, factor_id, totp = totp_user(api, admin)
    here = elsewhere()  # a challenge is answered from the address that asked for it
    challenge_id = mfa_challenge(api, session, factor_id, here)
    code = totp.now()
    for n in range(WRONG_TRIES):
        assert answer(mfa_verify(api, session, factor_id, challenge_id, other_than(code, n), here)) == WRONG_TOTP
    assert answer(mfa_verify(api, session, factor_id, challenge_id, code, here)) == CHALLENGE_GONE
    # The factor's wrong codes are spent too, for GOTRUE's recovery-code lockout time (15 min).
    again = mfa_challenge(api, session, factor_id, here)
    assert answer(mfa_verify(api, session, factor_id, again, code, here)) == TOTP_LOCKED
    sql(server, "update auth.mfa_totp_guards set failures_until = now() where factor_id = %s", [factor_id])
    assert mfa_verify(api, session, factor_id, again, code, here).status_code == 200


def test_wrong_totp_codes_are_bounded_per_factor_across_challenges(api: httpx.Client, admin: httpx.Client) -> None:
    """An attacker with the password opens a new challenge for each guess, each from an address
    of its own."""
    session, factor_id, totp = totp_user(api, admin)
    code = totp.now()
    for n in range(WRONG_TRIES):
        there = elsewhere()
        challenge_id = mfa_challenge(api, session, factor_id, there)
        assert answer(mfa_verify(api, session, factor_id, challenge_id, other_than(code, n), there)) == WRONG_TOTP
    there = elsewhere()
    challenge_id = mfa_challenge(api, session, factor_id, there)
    assert answer(mfa_verify(api, session, factor_id, challenge_id, code, there)) == TOTP_LOCKED


def test_a_phone_challenge_dies_after_five_wrong_codes(server: harness.LiveServer, api: httpx.Client,
                                                       admin: httpx.Client) -> None:
    session = confirmed_user(api, admin)
    phone = new_phone()
    factor = api.post("/factors", json={"factor_type": "phone", "phone": "+" + phone}, headers=bearer(session))
    assert factor.status_code == 200, factor.text
    factor_id = factor.json()["id"]
    here = elsewhere()
    challenge_id = mfa_challenge(api, session, factor_id, here)
    code = texted_code(server, phone)
    wrong_phone = (422, "mfa_verification_failed", "Invalid MFA Phone code entered")
    for n in range(WRONG_TRIES):
        assert answer(mfa_verify(api, session, factor_id, challenge_id, other_than(code, n), here)) == wrong_phone
    assert answer(mfa_verify(api, session, factor_id, challenge_id, code, here)) == CHALLENGE_GONE
    time.sleep(1.1)  # GOTRUE_MFA_PHONE_MAX_FREQUENCY=1s
    again = mfa_challenge(api, session, factor_id, here)
    verified = mfa_verify(api, session, factor_id, again, texted_code(server, phone), here)
    assert verified.status_code == 200, verified.text
