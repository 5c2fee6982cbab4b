"""Hostile input to /auth/v1: oversized metadata, tokens and bodies, malformed e-mail
addresses, and password guessing spread over many IPs. Each is refused in GoTrue's format,
before it costs memory or database time, and changes nothing."""

from __future__ import annotations

import socket
import time
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import httpx
import jwt as pyjwt
import psycopg
import pytest

from server.auth.http import MAX_BODY_BYTES
from server.auth.metadata import MAX_METADATA_BYTES, MAX_METADATA_DEPTH
from server.core.jwt import MAX_TOKEN_BYTES
from tests import harness

NEW_API = {"X-Supabase-Api-Version": "2024-01-01"}
PASSWORD = "right-pass-123"


@pytest.fixture(scope="module")
def api(live_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/auth/v1", timeout=30,
                      headers={"apikey": live_server.anon_key, **NEW_API}) as client:
        yield client


@pytest.fixture(scope="module")
def admin(live_server: harness.LiveServer) -> dict[str, str]:
    return {"apikey": live_server.service_key, "authorization": f"Bearer {live_server.service_key}"}


def new_email(prefix: str = "sec") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def sign_up(api: httpx.Client, email: str | None = None, **extra: Any) -> dict[str, Any]:
    response = api.post("/signup", json={"email": email or new_email(), "password": PASSWORD, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def bearer(session: dict[str, Any]) -> dict[str, str]:
    return {"authorization": f"Bearer {session['access_token']}"}


def user_count(database_url: str, email: str | None = None) -> int:
    with psycopg.connect(database_url) as conn:
        if email is None:
            return conn.execute("select count(*) from auth.users").fetchone()[0]
        return conn.execute("select count(*) from auth.users where lower(email) like lower(%s)",
                            [email.strip() + "%"]).fetchone()[0]


def metadata_of(database_url: str, user_id: str) -> tuple[Any, Any]:
    with psycopg.connect(database_url) as conn:
        return conn.execute("select raw_user_meta_data, raw_app_meta_data from auth.users where id = %s",
                            [user_id]).fetchone()


def assert_gotrue_error(response: httpx.Response, status: int, code: str, *words: str) -> None:
    assert response.status_code == status, response.text[:300]
    body = response.json()
    assert body["code"] == code and response.headers["x-sb-error-code"] == code, body
    assert set(body) == {"code", "message"}
    for word in words:
        assert word in body["message"], body


# -- user metadata: bounded in size (as the token carries it) and depth ---------------------

TOO_LARGE = {"bio": "x" * (MAX_METADATA_BYTES + 1)}
# 3,000 accented letters: 6 KB of UTF-8, but 18 KB once \u-escaped in a token.
TOO_LARGE_ESCAPED = {"bio": "é" * 3000}


def nested(levels: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(levels - 1):
        value = {"a": value}
    return value


@pytest.mark.parametrize("data", [TOO_LARGE, TOO_LARGE_ESCAPED, nested(MAX_METADATA_DEPTH + 1)],
                         ids=["large", "escaped", "deep"])
def test_sign_up_with_oversized_metadata_is_refused(api: httpx.Client, database_url: str, data: dict) -> None:
    email = new_email("meta")
    response = api.post("/signup", json={"email": email, "password": PASSWORD, "data": data})
    assert_gotrue_error(response, 400, "validation_failed", "user_metadata")
    assert user_count(database_url, email) == 0


def test_otp_and_anonymous_sign_up_bound_metadata(api: httpx.Client, database_url: str) -> None:
    before = user_count(database_url)
    assert_gotrue_error(api.post("/otp", json={"email": new_email("otp"), "data": TOO_LARGE}), 400, "validation_failed")
    assert_gotrue_error(api.post("/signup", json={"data": TOO_LARGE}), 400, "validation_failed")
    assert user_count(database_url) == before


def test_update_user_cannot_grow_metadata_past_the_bound(api: httpx.Client, database_url: str) -> None:
    session = sign_up(api)
    half = "y" * (MAX_METADATA_BYTES // 2)
    first = api.put("/user", json={"data": {"a": half}}, headers=bearer(session))
    assert first.status_code == 200, first.text
    stored = metadata_of(database_url, session["user"]["id"])
    # each change is under the bound, the merged object is not
    assert_gotrue_error(api.put("/user", json={"data": {"b": half}}, headers=bearer(session)),
                        400, "validation_failed", "user_metadata")
    assert_gotrue_error(api.put("/user", json={"data": nested(MAX_METADATA_DEPTH + 1)}, headers=bearer(session)),
                        400, "validation_failed")
    assert metadata_of(database_url, session["user"]["id"]) == stored
    # removing keys is always allowed
    assert api.put("/user", json={"data": {"a": None}}, headers=bearer(session)).status_code == 200


def test_admin_bounds_both_metadata_objects(api: httpx.Client, admin: dict[str, str], database_url: str) -> None:
    email = new_email("admin")
    for key in ("user_metadata", "app_metadata"):
        response = api.post("/admin/users", json={"email": email, "password": PASSWORD, key: TOO_LARGE}, headers=admin)
        assert_gotrue_error(response, 400, "validation_failed", key)
    assert user_count(database_url, email) == 0
    user = sign_up(api)["user"]
    stored = metadata_of(database_url, user["id"])
    for key in ("user_metadata", "app_metadata"):
        response = api.put(f"/admin/users/{user['id']}", json={key: TOO_LARGE_ESCAPED}, headers=admin)
        assert_gotrue_error(response, 400, "validation_failed", key)
    assert metadata_of(database_url, user["id"]) == stored


def test_metadata_at_the_bound_gives_a_token_every_service_accepts(api: httpx.Client, admin: dict[str, str],
                                                                   live_server: harness.LiveServer) -> None:
    # Both objects just under the bound, in the costliest characters: the token stays usable.
    room = (MAX_METADATA_BYTES - 100) // 6
    user = sign_up(api, data={"bio": "é" * room})["user"]
    updated = api.put(f"/admin/users/{user['id']}", json={"app_metadata": {"note": "é" * room}}, headers=admin)
    assert updated.status_code == 200, updated.text
    session = api.post("/token?grant_type=password", json={"email": user["email"], "password": PASSWORD}).json()
    assert len(session["access_token"]) < MAX_TOKEN_BYTES
    assert api.get("/user", headers=bearer(session)).status_code == 200
    rest = httpx.get(f"{live_server.url}/rest/v1/", headers={"apikey": live_server.anon_key, **bearer(session)})
    assert rest.status_code == 200, rest.text[:200]


# -- tokens: bounded before any decoding -------------------------------------------------------

def test_a_huge_but_validly_signed_token_is_refused_everywhere(api: httpx.Client,
                                                               live_server: harness.LiveServer) -> None:
    user = sign_up(api)["user"]
    claims = {"sub": user["id"], "role": "authenticated", "aud": "authenticated", "exp": int(time.time()) + 600,
              "user_metadata": {"pad": "p" * MAX_TOKEN_BYTES}}
    token = pyjwt.encode(claims, live_server.settings.jwt_secret, algorithm="HS256")
    headers = {"apikey": live_server.anon_key, "authorization": f"Bearer {token}"}
    response = api.get("/user", headers=headers)
    assert_gotrue_error(response, 403, "bad_jwt", "larger than")
    rest = httpx.get(f"{live_server.url}/rest/v1/", headers=headers)
    assert rest.status_code == 401 and rest.json()["code"] == "PGRST301"
    storage = httpx.get(f"{live_server.url}/storage/v1/bucket", headers=headers)
    assert storage.status_code in (400, 401, 403) and "larger than" in storage.json()["message"]


# -- bodies: bounded, and the token checked before a body is read ------------------------------

def raw_request(server: harness.LiveServer, head: bytes, body_chunks: Iterable[bytes] = ()) -> bytes:
    """Send `head` then the chunks (stopping if the server closes), and read the answer."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=15) as sock:
        try:
            sock.sendall(head)
            for chunk in body_chunks:
                sock.sendall(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except (ConnectionResetError, TimeoutError):
            pass
        return answer


def test_a_body_over_the_bound_is_413_from_its_content_length(api: httpx.Client, database_url: str) -> None:
    email = new_email("big")
    body = b'{"email": "' + email.encode() + b'", "password": "' + PASSWORD.encode() + b'", "data": {"x": "'
    body += b"x" * (MAX_BODY_BYTES + 1) + b'"}}'
    response = api.post("/signup", content=body, headers={"content-type": "application/json"})
    assert_gotrue_error(response, 413, "validation_failed", "too large")
    assert response.headers["connection"] == "close"
    assert user_count(database_url, email) == 0


def test_a_streamed_body_is_cut_at_the_bound_without_being_held(live_server: harness.LiveServer,
                                                                database_url: str) -> None:
    before_rss = harness.process_tree_rss(live_server.process.pid)
    head = (b"POST /auth/v1/signup HTTP/1.1\r\nHost: x\r\napikey: " + live_server.anon_key.encode() +
            b"\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n")
    chunk = b"x" * 65536
    for _ in range(3):  # 32 MiB each, with no Content-Length to refuse early
        answer = raw_request(live_server, head, (b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(512)))
        assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
        assert b'"error_code":"validation_failed"' in answer
    grown = harness.process_tree_rss(live_server.process.pid) - before_rss
    assert grown < 30 * 1024 * 1024, f"RSS grew by {grown / 1e6:.1f} MB"


@pytest.mark.parametrize(("method", "path"), [("PUT", "/user"), ("PUT", f"/admin/users/{uuid.uuid4()}"),
                                              ("POST", "/admin/users"), ("POST", "/logout")])
def test_a_bad_token_is_refused_before_the_body_is_read(live_server: harness.LiveServer, method: str,
                                                        path: str) -> None:
    # The body never ends: an answer proves the server did not wait for it.
    head = (f"{method} /auth/v1{path} HTTP/1.1\r\nHost: x\r\napikey: {live_server.anon_key}\r\n"
            f"authorization: Bearer not-a-token\r\ncontent-type: application/json\r\n"
            f"content-length: {MAX_BODY_BYTES}\r\n\r\n").encode()
    answer = raw_request(live_server, head, [b'{"data": {"x": "'])
    assert answer.startswith(b"HTTP/1.1 403 "), answer[:200]
    assert b'"error_code":"bad_jwt"' in answer


# -- e-mail addresses: GoTrue's format check, everywhere ---------------------------------------

BAD_EMAILS = ["user@example.com\n", "user@example.com\r\n", " user@example.com", "user@exa mple.com",
              "user@-example.com"]


@pytest.mark.parametrize("bad", BAD_EMAILS)
def test_sign_up_refuses_a_malformed_email(api: httpx.Client, database_url: str, bad: str) -> None:
    response = api.post("/signup", json={"email": bad, "password": PASSWORD})
    assert_gotrue_error(response, 400, "validation_failed", "Unable to validate email address: invalid format")
    assert user_count(database_url, "user@") == 0


def test_every_endpoint_taking_an_email_refuses_a_trailing_newline(api: httpx.Client, admin: dict[str, str],
                                                                   database_url: str) -> None:
    session = sign_up(api)
    bad = new_email("nl") + "\n"
    before = user_count(database_url)
    calls = [
        ("POST", "/otp", {"email": bad}, {}),
        ("POST", "/magiclink", {"email": bad}, {}),
        ("POST", "/recover", {"email": bad}, {}),
        ("POST", "/resend", {"type": "signup", "email": bad}, {}),
        ("POST", "/token?grant_type=password", {"email": bad, "password": PASSWORD}, {}),
        ("POST", "/verify", {"type": "email", "email": bad, "token": "123456"}, {}),
        ("PUT", "/user", {"email": bad}, bearer(session)),
        ("POST", "/admin/users", {"email": bad, "password": PASSWORD}, admin),
        ("PUT", f"/admin/users/{session['user']['id']}", {"email": bad}, admin),
        ("POST", "/admin/generate_link", {"type": "magiclink", "email": bad}, admin),
    ]
    for method, path, body, headers in calls:
        response = api.request(method, path, json=body, headers=headers)
        assert_gotrue_error(response, 400, "validation_failed", "invalid format")
    assert user_count(database_url) == before
    assert api.get("/user", headers=bearer(session)).json()["email"] == session["user"]["email"]


# -- password guessing: bounded per account and client; nobody locks the owner out ----------------

@pytest.fixture(scope="module")
def limited(database_url: str) -> Iterator[harness.LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={"SUPALITE_RATE_LIMITS": "true"})
    yield server
    server.stop()


def guess(server: harness.LiveServer, email: str, password: str, ip: str) -> httpx.Response:
    # The harness trusts X-Forwarded-For from 127.0.0.1, as a server behind a proxy does.
    return httpx.post(f"{server.url}/auth/v1/token?grant_type=password", json={"email": email, "password": password},
                      headers={"apikey": server.anon_key, "x-forwarded-for": ip, **NEW_API})


def test_password_guesses_are_limited_per_account_and_client(limited: harness.LiveServer,
                                                             admin: dict[str, str]) -> None:
    email = new_email("victim")
    created = httpx.post(f"{limited.url}/auth/v1/admin/users", headers=admin,
                         json={"email": email, "password": PASSWORD, "email_confirm": True})
    assert created.status_code == 200, created.text
    for attempt in range(10):
        assert_gotrue_error(guess(limited, email, f"guess-{attempt}", "203.0.113.50"), 400, "invalid_credentials")
    # That client, even with the right password and another case: refused until the window ends.
    assert_gotrue_error(guess(limited, email.upper(), PASSWORD, "203.0.113.50"), 429, "over_request_rate_limit")
    # Wrong guesses from many addresses lock nobody out: the owner, elsewhere, signs in.
    for attempt in range(11):
        assert_gotrue_error(guess(limited, email, f"spray-{attempt}", f"203.0.113.{attempt}"), 400, "invalid_credentials")
    assert guess(limited, email.upper(), PASSWORD, "198.51.100.7").status_code == 200
    # Another account is not affected.
    other = new_email("other")
    httpx.post(f"{limited.url}/auth/v1/admin/users", headers=admin,
               json={"email": other, "password": PASSWORD, "email_confirm": True})
    assert guess(limited, other, PASSWORD, "203.0.113.50").status_code == 200


def test_unknown_addresses_are_limited_the_same(limited: harness.LiveServer) -> None:
    email = new_email("nobody")
    for _ in range(10):
        assert_gotrue_error(guess(limited, email, "guess", "192.0.2.9"), 400, "invalid_credentials")
    assert_gotrue_error(guess(limited, email, "guess", "192.0.2.9"), 429, "over_request_rate_limit")