"""SUPALITE_AUTH_MAX_SESSIONS: supabase-js sees the refusal (tests/js/auth-session-limit.test.mjs)."""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest

from tests import harness
from tests.auth.conftest import auth_api, auth_server, new_email, sign_up
from tests.js.node_suite import needs_node, run_node_suite


@pytest.fixture(scope="module")
def limited_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"SUPALITE_AUTH_MAX_SESSIONS": "2"}) as server:
        yield server


@needs_node
def test_supabase_js_sees_the_session_limit(limited_server: harness.LiveServer) -> None:
    counts = run_node_suite("auth-session-limit.test.mjs", limited_server, MAX_SESSIONS="2")
    assert counts["pass"] == 2 and counts["skipped"] == 0


def test_ended_and_expired_sessions_do_not_count(limited_server: harness.LiveServer) -> None:
    with auth_api(limited_server) as api:
        email = new_email("limit")
        first = sign_up(api, email)
        login = {"email": email, "password": "secret-pass"}
        assert api.post("/token?grant_type=password", json=login).status_code == 200
        refused = api.post("/token?grant_type=password", json=login)
        assert refused.status_code == 403 and "maximum number of sessions" in refused.json()["msg"]
        with psycopg.connect(limited_server.database_url, autocommit=True) as conn:
            conn.execute("update auth.sessions set not_after = now() - interval '1 second' where id ="
                         " (select session_id from auth.refresh_tokens where token = %s)", [first["refresh_token"]])
        assert api.post("/token?grant_type=password", json=login).status_code == 200
