"""The dev inbox (/inbox) exists only on a dev server (the demo JWT secret, or --dev).

On a server with a real secret and no SMTP it would let anyone request a recovery code for
any address, read it there and sign in as that user: there it does not exist, and requests
that would mail answer GoTrue's 400 `email_address_not_authorized` (the same for every
address, so nothing tells which accounts exist). On a dev server /inbox (no trailing slash)
shows the inbox, and a bad ?limit= is a 400, not a 500.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import psycopg
import pytest

from server.core.conninfo import authenticator_password
from tests import harness

SECRET = "a-real-secret-for-the-dev-tools-suite-0123456789"
PASSWORD = "owner-pass-123"
NEW_API = {"X-Supabase-Api-Version": "2024-01-01"}
INBOX_PATHS = ["/inbox", "/inbox/", "/inbox/api/v1/messages", "/inbox/api/v1/search?query=to:owner@example.com",
               "/inbox/api/v1/message/1"]


def production_env() -> dict[str, str]:
    # The authenticator role is the cluster's: keep the password the other servers use.
    demo = harness.base_settings("")
    return {"SUPALITE_JWT_SECRET": SECRET, "SUPALITE_AUTHENTICATOR_PASSWORD": authenticator_password(demo)}


@pytest.fixture(scope="module")
def production(database_url: str) -> Iterator[harness.LiveServer]:
    """A server with a real secret and no SMTP, holding a user and one mail in the inbox table."""
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env=production_env())
    admin = {"apikey": server.service_key, "authorization": f"Bearer {server.service_key}"}
    created = httpx.post(f"{server.url}/auth/v1/admin/users", headers=admin,
                         json={"email": "owner@example.com", "password": PASSWORD, "email_confirm": True})
    assert created.status_code == 200, created.text
    with psycopg.connect(database_url, autocommit=True) as conn:  # e.g. left from a dev run
        conn.execute("insert into auth.dev_inbox (recipient, subject, kind, otp, link, text_body, html_body)"
                     " values ('owner@example.com', 'Reset Your Password', 'recovery', '424242', 'x',"
                     " 'code 424242', '<p>code 424242</p>')")
    yield server
    server.stop()


def mails(database_url: str) -> int:
    with psycopg.connect(database_url) as conn:
        return conn.execute("select count(*) from auth.dev_inbox").fetchone()[0]


def auth_state(database_url: str) -> tuple:
    with psycopg.connect(database_url) as conn:
        return conn.execute("select (select count(*) from auth.users), (select count(*) from auth.one_time_tokens),"
                            " (select recovery_token from auth.users where email = 'owner@example.com')").fetchone()


@pytest.mark.parametrize("path", INBOX_PATHS)
def test_the_inbox_does_not_exist_without_the_demo_secret(production: harness.LiveServer, path: str) -> None:
    response = httpx.get(f"{production.url}{path}")
    assert response.status_code in (200, 404)  # the site's own page (its 404) or a plain 404
    assert "424242" not in response.text and "owner@example.com" not in response.text
    assert "Inbox" not in response.text and not response.headers["content-type"].startswith("application/json")


def test_the_inbox_cannot_be_emptied_without_the_demo_secret(production: harness.LiveServer, database_url: str) -> None:
    response = httpx.delete(f"{production.url}/inbox/api/v1/messages")
    assert response.status_code in (404, 405)
    assert mails(database_url) == 1


@pytest.mark.parametrize(("path", "body"), [
    ("/recover", {"email": "owner@example.com"}),
    ("/recover", {"email": "nobody@example.com"}),
    ("/otp", {"email": "owner@example.com"}),
    ("/otp", {"email": "newcomer@example.com"}),
    ("/magiclink", {"email": "owner@example.com"}),
    ("/resend", {"type": "signup", "email": "owner@example.com"}),
])
def test_mail_is_refused_for_every_address_without_smtp(production: harness.LiveServer, database_url: str,
                                                         path: str, body: dict) -> None:
    before = auth_state(database_url)
    response = httpx.post(f"{production.url}/auth/v1{path}", json=body,
                          headers={"apikey": production.anon_key, **NEW_API})
    assert response.status_code == 400, response.text
    error = response.json()
    assert error["code"] == "email_address_not_authorized" and body["email"] in error["message"]
    assert response.headers["x-sb-error-code"] == "email_address_not_authorized"
    assert auth_state(database_url) == before and mails(database_url) == 1  # no user, code or mail


def test_password_sign_in_works_without_smtp(production: harness.LiveServer) -> None:
    response = httpx.post(f"{production.url}/auth/v1/token?grant_type=password",
                          headers={"apikey": production.anon_key},
                          json={"email": "owner@example.com", "password": PASSWORD})
    assert response.status_code == 200, response.text


def test_start_up_says_in_one_line_that_mail_cannot_be_sent(production: harness.LiveServer) -> None:
    lines = [line for line in production.log().splitlines() if "SMTP" in line]
    assert len(lines) == 1 and "auth mails cannot be sent" in lines[0], production.log()


def test_the_inbox_shows_at_inbox_without_a_slash(live_server: harness.LiveServer) -> None:
    for path in ("/inbox", "/inbox/"):
        response = httpx.get(f"{live_server.url}{path}")
        assert response.status_code == 200 and "<h1>Inbox</h1>" in response.text, path
    assert "dev inbox at" in live_server.log()


@pytest.mark.parametrize("limit", ["9" * 5000, "abc", "0", "-1", "501", "1.5", "²", ""])
def test_a_bad_limit_is_a_400(live_server: harness.LiveServer, limit: str) -> None:
    for path in ("/inbox", "/inbox/api/v1/messages", "/inbox/api/v1/search"):
        response = httpx.get(f"{live_server.url}{path}", params={"limit": limit})
        assert response.status_code == 400, (path, response.text[:200])
        assert "limit must be an integer" in response.json()["error"]


def test_a_huge_message_id_is_a_404(live_server: harness.LiveServer) -> None:
    for message_id in ("9" * 5000, "99999999999999999999", "²"):
        response = httpx.get(f"{live_server.url}/inbox/api/v1/message/{message_id}")
        assert response.status_code == 404 and response.json() == {"error": "message not found"}


def test_dev_flag_keeps_the_inbox_with_a_real_secret(database_url: str) -> None:
    server = harness.start_server(database_url, args=["--dev", "--no-migrate"], extra_env=production_env())
    try:
        response = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"limit": "5"})
        assert response.status_code == 200 and "messages" in response.json()
    finally:
        server.stop()
