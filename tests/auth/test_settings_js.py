"""supabase-js against GoTrue's settings (tests/js/auth-settings.suite.mjs): mail confirmation,
password rules, secure password change, anonymous sign-ins off, the redirect allow list, and a
second server with sign-ups disabled."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import new_email

JS = Path(__file__).resolve().parent.parent / "js"
SITE = "https://app.example.com"


@pytest.fixture(scope="module")
def servers(database_url: str) -> Iterator[tuple[harness.LiveServer, harness.LiveServer]]:
    main = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_SITE_URL": SITE, "GOTRUE_URI_ALLOW_LIST": "https://*.example.org/**",
        "GOTRUE_PASSWORD_MIN_LENGTH": "10",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "false"})
    closed = harness.start_server(database_url, args=["--no-migrate"], extra_env={"GOTRUE_DISABLE_SIGNUP": "true"})
    yield main, closed
    closed.stop()
    main.stop()


def aged_session(server: harness.LiveServer) -> tuple[str, str]:
    """A confirmed user and the refresh token of a session signed in 25 hours ago."""
    email, password = new_email("js-aged"), "Strong-pass-42"
    admin = {"Authorization": f"Bearer {server.service_key}", "apikey": server.service_key}
    created = httpx.post(f"{server.url}/auth/v1/admin/users", headers=admin,
                         json={"email": email, "password": password, "email_confirm": True})
    assert created.status_code == 200, created.text
    session = httpx.post(f"{server.url}/auth/v1/token?grant_type=password", headers={"apikey": server.anon_key},
                         json={"email": email, "password": password}).json()
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s",
                     [session["user"]["id"]])
    return email, session["refresh_token"]


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_supabase_js_against_the_settings(servers: tuple[harness.LiveServer, harness.LiveServer]) -> None:
    main, closed = servers
    email, refresh_token = aged_session(main)
    env = dict(main.env, SUPABASE_URL=main.url, SUPABASE_ANON_KEY=main.anon_key, SUPABASE_SERVICE_KEY=main.service_key,
               SITE_URL=SITE, CLOSED_URL=closed.url, AGED_EMAIL=email, AGED_REFRESH_TOKEN=refresh_token)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "auth-settings.suite.mjs"], cwd=str(JS),
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# pass 7" in result.stdout and "# skipped 0" in result.stdout
