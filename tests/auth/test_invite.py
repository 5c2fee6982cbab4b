"""POST /invite and accepting an invite (GET /verify link, POST /verify code), as GoTrue's
invite.go; admin generate_link({type: invite}) alike; supabase-js in tests/js/auth-admin.test.mjs."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest

from server.core.conninfo import authenticator_password
from tests import harness
from tests.auth.conftest import NEW_API, admin_headers_of, auth_server, bearer, new_email, sign_up


def _latest_mail(live_server: harness.LiveServer, email: str) -> dict[str, Any]:
    response = httpx.get(f"{live_server.url}/inbox/api/v1/messages", params={"email": email, "limit": 1})
    assert response.status_code == 200
    messages = response.json()["messages"]
    assert messages, f"no mail for {email}"
    return messages[0]


def _invite(api: httpx.Client, admin_headers: dict[str, str], email: str, **body: Any) -> httpx.Response:
    return api.post("/invite", json={"email": email, **body}, headers={**admin_headers, **NEW_API})


def _row(live_server: harness.LiveServer, email: str) -> tuple[Any, ...]:
    with psycopg.connect(live_server.database_url) as conn:
        row = conn.execute("select invited_at, encrypted_password, email_confirmed_at, raw_user_meta_data"
                           " from auth.users where email = %s", [email]).fetchone()
    assert row is not None
    return row


def test_invite_creates_the_user_and_mails_a_link(api: httpx.Client, admin_headers: dict[str, str],
                                                  live_server: harness.LiveServer) -> None:
    email = new_email("invite")
    response = _invite(api, admin_headers, email, data={"team": "blue", "level": 2})
    assert response.status_code == 200, response.text
    user = response.json()
    assert user["email"] == email and user["invited_at"] and user["confirmation_sent_at"]
    assert "email_confirmed_at" not in user
    assert user["user_metadata"] == {"team": "blue", "level": 2}  # exactly the data sent
    assert user["app_metadata"] == {"provider": "email", "providers": ["email"]}
    [identity] = user["identities"]
    assert identity["provider"] == "email"
    assert identity["identity_data"] == {"sub": user["id"], "email": email, "email_verified": False,
                                         "phone_verified": False}
    mail = _latest_mail(live_server, email)
    assert mail["Kind"] == "invite" and mail["Subject"] == "Votre invitation sur English Facile"  # the site's learning/mail/
    link = urlsplit(mail["Link"])
    assert link.path == "/auth/v1/verify"
    query = parse_qs(link.query)
    assert query["type"] == ["invite"] and query["token"][0] and len(mail["OTP"]) == 6
    assert invited_password_is_empty(live_server, email)


def invited_password_is_empty(live_server: harness.LiveServer, email: str) -> bool:
    return _row(live_server, email)[1] == ""


def test_accepting_by_link_confirms_and_signs_in(api: httpx.Client, admin_headers: dict[str, str],
                                                 live_server: harness.LiveServer) -> None:
    email = new_email("invite-link")
    redirect = f"{live_server.url}/welcome"
    response = api.post("/invite", params={"redirect_to": redirect}, json={"email": email, "data": {"a": 1}},
                        headers=admin_headers)
    assert response.status_code == 200, response.text
    mail = _latest_mail(live_server, email)
    assert parse_qs(urlsplit(mail["Link"]).query)["redirect_to"] == [redirect]
    opened = httpx.get(mail["Link"], follow_redirects=False)
    assert opened.status_code == 303
    target = urlsplit(opened.headers["location"])
    assert f"{target.scheme}://{target.netloc}{target.path}" == redirect
    fragment = parse_qs(target.fragment)
    assert fragment["type"] == ["invite"] and fragment["access_token"][0]
    me = api.get("/user", headers=bearer({"access_token": fragment["access_token"][0]}))
    assert me.status_code == 200
    body = me.json()
    assert body["email_confirmed_at"] and body["user_metadata"] == {"a": 1, "email_verified": True}
    assert body["identities"][0]["identity_data"]["email_verified"] is True
    # GoTrue gives an invited user a random password on acceptance, for the app to replace
    assert not invited_password_is_empty(live_server, email)
    changed = api.put("/user", json={"password": "chosen-password"},
                      headers=bearer({"access_token": fragment["access_token"][0]}))
    assert changed.status_code == 200, changed.text
    signed_in = api.post("/token?grant_type=password", json={"email": email, "password": "chosen-password"})
    assert signed_in.status_code == 200
    # the link works once
    again = httpx.get(mail["Link"], follow_redirects=False)
    assert again.status_code == 303 and "error_code=otp_expired" in again.headers["location"]


def test_accepting_by_code_and_replay(api: httpx.Client, admin_headers: dict[str, str],
                                      live_server: harness.LiveServer) -> None:
    email = new_email("invite-code")
    assert _invite(api, admin_headers, email).status_code == 200
    code = _latest_mail(live_server, email)["OTP"]
    wrong = api.post("/verify", json={"type": "invite", "email": email, "token": "000000" if code != "000000" else "111111"},
                     headers=NEW_API)
    assert wrong.status_code == 403 and wrong.json()["code"] == "otp_expired"
    verified = api.post("/verify", json={"type": "invite", "email": email, "token": code})
    assert verified.status_code == 200, verified.text
    session = verified.json()
    assert session["access_token"] and session["user"]["email"] == email
    assert session["user"]["user_metadata"] == {"email_verified": True}
    replay = api.post("/verify", json={"type": "invite", "email": email, "token": code}, headers=NEW_API)
    assert replay.status_code == 403 and replay.json()["code"] == "otp_expired"


def test_expired_invite_code(api: httpx.Client, admin_headers: dict[str, str], live_server: harness.LiveServer) -> None:
    email = new_email("invite-old")
    assert _invite(api, admin_headers, email).status_code == 200
    code = _latest_mail(live_server, email)["OTP"]
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set confirmation_sent_at = now() - interval '2 hours' where email = %s", [email])
    expired = api.post("/verify", json={"type": "invite", "email": email, "token": code}, headers=NEW_API)
    assert expired.status_code == 403 and expired.json()["code"] == "otp_expired"


def test_reinvite_and_confirmed_address(api: httpx.Client, admin_headers: dict[str, str],
                                        live_server: harness.LiveServer) -> None:
    email = new_email("reinvite")
    first = _invite(api, admin_headers, email, data={"v": 1}).json()
    first_code = _latest_mail(live_server, email)["OTP"]
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set invited_at = now() - interval '1 day' where email = %s", [email])
    second = _invite(api, admin_headers, email, data={"v": 2})
    assert second.status_code == 200
    again = second.json()
    assert again["id"] == first["id"] and again["user_metadata"] == {"v": 1}  # not updated by a re-invite
    assert again["invited_at"] > first["invited_at"]
    second_mail = _latest_mail(live_server, email)
    if second_mail["OTP"] != first_code:  # the new code replaces the old one
        old = api.post("/verify", json={"type": "invite", "email": email, "token": first_code}, headers=NEW_API)
        assert old.status_code == 403
    assert api.post("/verify", json={"type": "invite", "email": email, "token": second_mail["OTP"]}).status_code == 200
    confirmed = _invite(api, admin_headers, email)
    assert confirmed.status_code == 422
    assert confirmed.json() == {"code": "email_exists",
                                "message": "A user with this email address has already been registered"}
    signed_up = new_email("invite-taken")
    sign_up(api, signed_up)  # the harness's server autoconfirms sign-ups
    assert _invite(api, admin_headers, signed_up).json()["code"] == "email_exists"


def test_invite_bad_input(api: httpx.Client, admin_headers: dict[str, str]) -> None:
    headers = {**admin_headers, **NEW_API}
    user = sign_up(api)
    not_admin = api.post("/invite", json={"email": new_email()}, headers={**bearer(user), **NEW_API})
    assert not_admin.status_code == 403 and not_admin.json()["code"] == "not_admin"
    no_token = api.post("/invite", json={"email": new_email()}, headers=NEW_API)
    assert no_token.status_code == 401 and no_token.json()["code"] == "no_authorization"
    cases: list[tuple[Any, int, str]] = [
        (b"{", 400, "bad_json"), (b"", 400, "bad_json"), (b"[1]", 400, "bad_json"),
        ({"email": 5}, 400, "bad_json"), ({"email": new_email(), "data": "x"}, 400, "bad_json"),
        ({"email": new_email(), "data": [1]}, 400, "bad_json"),
        ({}, 400, "validation_failed"), ({"email": "not-an-email"}, 400, "validation_failed"),
        ({"email": "a" * 250 + "@example.com"}, 400, "validation_failed"),
        ({"email": new_email(), "data": {"k": "x" * 9000}}, 400, "validation_failed"),
    ]
    for body, status, code in cases:
        if isinstance(body, bytes):
            response = api.post("/invite", content=body, headers={**headers, "Content-Type": "application/json"})
        else:
            response = api.post("/invite", json=body, headers=headers)
        assert (response.status_code, response.json()["code"]) == (status, code), (body, response.text)
    huge = api.post("/invite", json={"email": new_email(), "data": {"k": "x" * 200_000}}, headers=headers)
    assert huge.status_code == 413
    assert api.get("/invite", headers=headers).status_code in (404, 405)


def test_redirect_to_outside_the_site_falls_back(api: httpx.Client, admin_headers: dict[str, str],
                                                 live_server: harness.LiveServer) -> None:
    email = new_email("invite-redirect")
    response = api.post("/invite", params={"redirect_to": "https://evil.example.com/x"}, json={"email": email},
                        headers=admin_headers)
    assert response.status_code == 200
    redirect = parse_qs(urlsplit(_latest_mail(live_server, email)["Link"]).query)["redirect_to"][0]
    assert not redirect.startswith("https://evil.example.com")


def test_generate_link_invite_is_consistent(api: httpx.Client, admin_headers: dict[str, str],
                                            live_server: harness.LiveServer) -> None:
    email = new_email("invite-gen")
    response = api.post("/admin/generate_link", json={"type": "invite", "email": email, "data": {"x": "y"}},
                        headers=admin_headers)
    assert response.status_code == 200, response.text
    link = response.json()
    assert link["verification_type"] == "invite" and link["invited_at"]
    assert link["user_metadata"] == {"x": "y"}
    assert link["identities"][0]["identity_data"] == {"sub": link["id"], "email": email, "email_verified": False,
                                                      "phone_verified": False}
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute("update auth.users set invited_at = now() - interval '1 day' where email = %s", [email])
    again = api.post("/admin/generate_link", json={"type": "invite", "email": email}, headers=admin_headers).json()
    assert again["id"] == link["id"] and again["invited_at"] > link["invited_at"]
    verified = api.post("/verify", json={"type": "invite", "token_hash": again["hashed_token"]})
    assert verified.status_code == 200, verified.text
    assert verified.json()["user"]["user_metadata"] == {"x": "y", "email_verified": True}
    taken = api.post("/admin/generate_link", json={"type": "invite", "email": email}, headers={**admin_headers, **NEW_API})
    assert taken.status_code == 422 and taken.json()["code"] == "email_exists"


@pytest.fixture(scope="module")
def mailless_server(database_url: str) -> Any:
    # a real JWT secret and no SMTP: no mail can be sent
    password = authenticator_password(harness.base_settings(""))
    with auth_server(database_url, {
        "SUPALITE_JWT_SECRET": "a-real-secret-of-at-least-32-characters-xyz", "SUPALITE_AUTHENTICATOR_PASSWORD": password,
    }) as server:
        yield server


def test_invite_without_any_mail_delivery(mailless_server: harness.LiveServer) -> None:
    headers = {**admin_headers_of(mailless_server), **NEW_API}
    email = new_email("invite-nomail")
    response = httpx.post(f"{mailless_server.url}/auth/v1/invite", json={"email": email}, headers=headers)
    assert response.status_code == 400 and response.json()["code"] == "email_address_not_authorized"
    with psycopg.connect(mailless_server.database_url) as conn:
        assert conn.execute("select 1 from auth.users where email = %s", [email]).fetchone() is None


def test_invite_mails_count_against_the_email_limit(database_url: str) -> None:
    with auth_server(database_url, {
        "SUPALITE_RATE_LIMITS": "true", "SUPALITE_AUTH_RATE_LIMIT_EMAIL_SENT": "1",
    }) as server:
        headers = {**admin_headers_of(server), **NEW_API}
        first = httpx.post(f"{server.url}/auth/v1/invite", json={"email": new_email("limit-1")}, headers=headers)
        assert first.status_code == 200, first.text
        refused_email = new_email("limit-2")
        second = httpx.post(f"{server.url}/auth/v1/invite", json={"email": refused_email}, headers=headers)
        assert second.status_code == 429 and second.json()["code"] == "over_email_send_rate_limit"
        with psycopg.connect(server.database_url) as conn:  # the refused invite left no user behind
            assert conn.execute("select 1 from auth.users where email = %s", [refused_email]).fetchone() is None
