"""SUPALITE_AUTH_MAX_SESSIONS: supabase-js sees the refusal (tests/js/auth-session-limit.test.mjs)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import new_email, sign_up

JS = Path(__file__).resolve().parent.parent / "js"


@pytest.fixture(scope="module")
def limited_server(database_url: str) -> Iterator[harness.LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={"SUPALITE_AUTH_MAX_SESSIONS": "2"})
    yield server
    server.stop()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_supabase_js_sees_the_session_limit(limited_server: harness.LiveServer) -> None:
    env = dict(limited_server.env, SUPABASE_URL=limited_server.url, SUPABASE_ANON_KEY=limited_server.anon_key,
               SUPABASE_SERVICE_KEY=limited_server.service_key, MAX_SESSIONS="2")
    result = subprocess.run(["node", "--experimental-websocket", "--test", "auth-session-limit.test.mjs"], cwd=str(JS), env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# pass 2" in result.stdout and "# skipped 0" in result.stdout


def test_ended_and_expired_sessions_do_not_count(limited_server: harness.LiveServer) -> None:
    with httpx.Client(base_url=f"{limited_server.url}/auth/v1", headers={"apikey": limited_server.anon_key}) as api:
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
