"""A TOTP code serves once (RFC 6238 section 5.2): after a verify with the code of one time step,
that step and the steps before it are refused for the factor, in any session, on any worker;
two verifies racing with one code cannot both pass."""

from __future__ import annotations

import threading
import time
from typing import Any

import httpx
import pyotp

from tests import harness
from tests.auth.conftest import sign_up
from tests.auth.test_mfa import auth, challenge, claims, enroll_totp, error, sql, verify

REFUSED = (422, "mfa_verification_failed", "Invalid TOTP code entered")


def password_session(api: httpx.Client, email: str) -> dict[str, Any]:
    response = api.post("/token?grant_type=password", json={"email": email, "password": "secret-pass"})
    assert response.status_code == 200, response.text
    return response.json()


def enrolled_user(api: httpx.Client, offset: int = -30) -> tuple[str, str, pyotp.TOTP, int]:
    """A user with a verified TOTP factor, verified with the code of the step `offset` seconds
    away (GoTrue's skew lets the steps on either side through): (e-mail, factor id, its TOTP,
    the step used)."""
    session = sign_up(api)
    factor = enroll_totp(api, session).json()
    totp = pyotp.TOTP(factor["totp"]["secret"])
    chal = challenge(api, session, factor["id"]).json()
    at = time.time() + offset
    assert verify(api, session, factor["id"], chal["id"], totp.at(at)).status_code == 200
    return session["user"]["email"], factor["id"], totp, totp.timecode(at)


def test_a_code_used_in_one_session_is_refused_in_another(api: httpx.Client) -> None:
    session = sign_up(api)
    factor = enroll_totp(api, session).json()
    totp = pyotp.TOTP(factor["totp"]["secret"])
    code = totp.now()
    chal = challenge(api, session, factor["id"]).json()
    assert verify(api, session, factor["id"], chal["id"], code).status_code == 200
    # A second session (the password only) challenges and answers with the same code.
    other = password_session(api, session["user"]["email"])
    chal = challenge(api, other, factor["id"]).json()
    assert error(verify(api, other, factor["id"], chal["id"], code)) == REFUSED
    assert claims(api.post("/token?grant_type=refresh_token", json={"refresh_token": other["refresh_token"]})
                  .json()["access_token"])["aal"] == "aal1"
    # The code of a later step still serves.
    upgraded = verify(api, other, factor["id"], chal["id"], totp.at(time.time() + 30))
    assert upgraded.status_code == 200, upgraded.text
    assert claims(upgraded.json()["access_token"])["aal"] == "aal2"


def test_an_earlier_step_is_refused_after_a_later_one(api: httpx.Client) -> None:
    email, factor_id, totp, _ = enrolled_user(api, offset=30)  # the code of the next step
    other = password_session(api, email)
    chal = challenge(api, other, factor_id).json()
    for at in (time.time(), time.time() - 30):
        code = totp.at(at)
        if code != totp.at(time.time() + 30):  # (two steps may share a code, one in a million)
            assert error(verify(api, other, factor_id, chal["id"], code)) == REFUSED


def test_the_last_step_is_kept_in_the_database(api: httpx.Client, live_server: harness.LiveServer) -> None:
    """What every worker of every replica reads: the step is the factor's, in PostgreSQL."""
    _, factor_id, _, step = enrolled_user(api)
    assert sql(live_server, "select last_totp_step from auth.mfa_totp_guards where factor_id = %s",
               [factor_id]) == [(step,)]


def race(api: httpx.Client, factor_id: str, answers: list[tuple[dict[str, Any], str, str]]) -> list[int]:
    """Send the verifies (session, challenge id, code) at once; their statuses, in any order."""
    statuses: list[int] = []
    start = threading.Barrier(len(answers))

    def answer(session: dict[str, Any], challenge_id: str, code: str) -> None:
        with httpx.Client(base_url=str(api.base_url), headers=dict(api.headers), timeout=30) as client:
            start.wait()
            statuses.append(client.post(f"/factors/{factor_id}/verify", json={"challenge_id": challenge_id,
                                                                                "code": code},
                                        headers=auth(session)).status_code)

    threads = [threading.Thread(target=answer, args=one) for one in answers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(statuses)


def test_two_verifies_racing_with_one_code_do_not_both_pass(api: httpx.Client) -> None:
    email, factor_id, totp, _ = enrolled_user(api)  # the previous step: this one and the next are free
    session = password_session(api, email)
    code = totp.at(time.time() + 30)
    challenges = [challenge(api, session, factor_id).json()["id"] for _ in range(4)]
    assert race(api, factor_id, [(session, c, code) for c in challenges]) == [200, 422, 422, 422]


def test_a_session_ended_by_a_concurrent_verify_is_refused_not_a_500(api: httpx.Client) -> None:
    """The first verify ends the user's other aal1 sessions (GoTrue's
    InvalidateSessionsWithAALLessThan); one waiting on the factor meanwhile must not fail on its
    vanished session."""
    email, factor_id, totp, _ = enrolled_user(api)
    first, second = password_session(api, email), password_session(api, email)
    now = time.time()
    answers = [(first, challenge(api, first, factor_id).json()["id"], totp.at(now)),
               (second, challenge(api, second, factor_id).json()["id"], totp.at(now + 30))]
    statuses = race(api, factor_id, answers)
    assert statuses in ([200, 403], [200, 422]), statuses
