"""GET /reauthenticate and GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION: a password
change from a session older than 24 hours needs the mailed (or texted) nonce, once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import auth_api, auth_server, new_email

TEST_PHONE = "15555550100"
TEST_CODE = "424242"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
        "GOTRUE_SMS_TEST_OTP": f"{TEST_PHONE}:{TEST_CODE}",
        "SUPALITE_MAIL_TEMPLATES_DIR": str(harness.scratch_dir("supalite-mail-")),  # GoTrue's own mails
    }) as server:
        yield server


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server, new_api=True) as client:
        yield client


def sql(server: harness.LiveServer, query: str, params: list[Any]) -> None:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute(query, params)


def old_session(api: httpx.Client, server: harness.LiveServer, email: str | None = None) -> dict[str, Any]:
    """A session signed in 25 hours ago."""
    session = api.post("/signup", json={"email": email or new_email("reauth"), "password": "first-pass"}).json()
    sql(server, "update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s",
        [session["user"]["id"]])
    return session


def auth(session: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}


def mailed_nonce(server: harness.LiveServer, email: str) -> str:
    (mail, *_) = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"email": email}).json()["messages"]
    assert mail["Subject"] == "Confirm reauthentication" and mail["OTP"] in mail["Text"]
    return str(mail["OTP"])


def error(response: httpx.Response) -> tuple[int, str]:
    return response.status_code, response.json()["code"]


def test_a_recent_sign_in_needs_no_nonce(api: httpx.Client) -> None:
    session = api.post("/signup", json={"email": new_email(), "password": "first-pass"}).json()
    assert api.put("/user", json={"password": "second-pass"}, headers=auth(session)).status_code == 200


def test_an_old_session_needs_the_mailed_nonce_once(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("nonce")
    session = old_session(api, server, email)
    needed = api.put("/user", json={"password": "second-pass"}, headers=auth(session))
    assert needed.status_code == 400
    assert needed.json() == {"code": "reauthentication_needed", "message": "Password update requires reauthentication"}
    # other changes do not need it
    assert api.put("/user", json={"data": {"a": 1}}, headers=auth(session)).status_code == 200
    assert api.put("/user", json={"password": "second-pass", "nonce": "123456"}, headers=auth(session)).json() == {
        "code": "reauthentication_not_valid", "message": "Nonce has expired or is invalid"}  # none was sent
    sent = api.get("/reauthenticate", headers=auth(session))
    assert sent.status_code == 200 and sent.json() == {}
    nonce = mailed_nonce(server, email)
    wrong = "000000" if nonce != "000000" else "111111"
    assert error(api.put("/user", json={"password": "second-pass", "nonce": wrong}, headers=auth(session))) == (
        422, "reauthentication_not_valid")
    changed = api.put("/user", json={"password": "second-pass", "nonce": nonce}, headers=auth(session))
    assert changed.status_code == 200, changed.text
    assert api.post("/token?grant_type=password", json={"email": email, "password": "second-pass"}).status_code == 200
    # spent: the same nonce does not change the password again
    replay = api.put("/user", json={"password": "third-pass", "nonce": nonce}, headers=auth(session))
    assert error(replay) == (422, "reauthentication_not_valid")


def test_an_expired_nonce_is_refused(api: httpx.Client, server: harness.LiveServer) -> None:
    email = new_email("expired")
    session = old_session(api, server, email)
    api.get("/reauthenticate", headers=auth(session))
    nonce = mailed_nonce(server, email)
    sql(server, "update auth.users set reauthentication_sent_at = now() - interval '2 hours' where email = %s", [email])
    assert error(api.put("/user", json={"password": "second-pass", "nonce": nonce}, headers=auth(session))) == (
        422, "reauthentication_not_valid")


def test_another_users_nonce_is_refused(api: httpx.Client, server: harness.LiveServer) -> None:
    mine, theirs = new_email("mine"), new_email("theirs")
    my_session, their_session = old_session(api, server, mine), old_session(api, server, theirs)
    api.get("/reauthenticate", headers=auth(my_session))
    api.get("/reauthenticate", headers=auth(their_session))
    their_nonce = mailed_nonce(server, theirs)
    if their_nonce != mailed_nonce(server, mine):
        assert error(api.put("/user", json={"password": "second-pass", "nonce": their_nonce},
                             headers=auth(my_session))) == (422, "reauthentication_not_valid")


def test_a_phone_user_gets_the_nonce_by_sms(api: httpx.Client, server: harness.LiveServer) -> None:
    session = api.post("/signup", json={}).json()  # anonymous, then given a confirmed test number
    user_id = session["user"]["id"]
    sql(server, "update auth.users set phone = %s, phone_confirmed_at = now(), is_anonymous = false,"
                " encrypted_password = '' where id = %s", [TEST_PHONE, user_id])
    sql(server, "update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s", [user_id])
    sent = api.get("/reauthenticate", headers=auth(session))
    # GoTrue answers the SMS's message id: "test-otp" for a test number
    assert (sent.status_code, sent.json()) == (200, {"message_id": "test-otp"})
    assert error(api.put("/user", json={"password": "phone-pass-1"}, headers=auth(session))) == (
        400, "reauthentication_needed")
    assert api.put("/user", json={"password": "phone-pass-1", "nonce": TEST_CODE}, headers=auth(session)).status_code == 200


def test_reauthenticate_refusals(api: httpx.Client, server: harness.LiveServer) -> None:
    assert error(api.get("/reauthenticate")) == (401, "no_authorization")
    assert error(api.get("/reauthenticate", headers={"Authorization": "Bearer not-a-jwt"}))[0] == 403
    anonymous = api.post("/signup", json={}).json()
    assert error(api.get("/reauthenticate", headers=auth(anonymous))) == (400, "validation_failed")
    unconfirmed = api.post("/signup", json={"email": new_email("unconfirmed"), "password": "first-pass"}).json()
    sql(server, "update auth.users set email_confirmed_at = null where id = %s", [unconfirmed["user"]["id"]])
    refused = api.get("/reauthenticate", headers=auth(unconfirmed))
    assert refused.status_code == 422 and refused.json() == {"code": "email_not_confirmed",
                                                             "message": "Please verify your email first."}
    assert api.post("/reauthenticate", headers=auth(anonymous)).status_code in (404, 405)


@pytest.mark.parametrize("nonce", [123456, ["123456"], {"n": 1}, True])
def test_a_nonce_of_the_wrong_type(api: httpx.Client, server: harness.LiveServer, nonce: object) -> None:
    session = old_session(api, server)
    assert error(api.put("/user", json={"password": "second-pass", "nonce": nonce}, headers=auth(session))) == (
        400, "bad_json")


def test_an_oversized_nonce_is_just_invalid(api: httpx.Client, server: harness.LiveServer) -> None:
    session = old_session(api, server)
    api.get("/reauthenticate", headers=auth(session))
    assert error(api.put("/user", json={"password": "second-pass", "nonce": "9" * 100_000}, headers=auth(session))) == (
        422, "reauthentication_not_valid")
