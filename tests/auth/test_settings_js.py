"""supabase-js against GoTrue's settings (tests/js/auth-settings.suite.mjs): mail confirmation,
password rules, secure password change, anonymous sign-ins off, the redirect allow list, and a
second server with sign-ups disabled."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth.conftest import admin_headers_of, auth_server, new_email
from tests.js.node_suite import needs_node, run_node_suite

SITE = "https://app.example.com"


@pytest.fixture(scope="module")
def servers(database_url: str) -> Iterator[tuple[harness.LiveServer, harness.LiveServer]]:
    with auth_server(database_url, {
        "GOTRUE_MAILER_AUTOCONFIRM": "false", "GOTRUE_SITE_URL": SITE, "GOTRUE_URI_ALLOW_LIST": "https://*.example.org/**",
        "GOTRUE_PASSWORD_MIN_LENGTH": "10",
        "GOTRUE_PASSWORD_REQUIRED_CHARACTERS": "abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789",
        "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "false",
        "SUPALITE_MAIL_TEMPLATES_DIR": str(harness.scratch_dir("supalite-mail-")),  # GoTrue's own mails
    }) as main, auth_server(database_url, {"GOTRUE_DISABLE_SIGNUP": "true"}) as closed:
        yield main, closed


def aged_session(server: harness.LiveServer) -> tuple[str, str]:
    """A confirmed user and the refresh token of a session signed in 25 hours ago."""
    email, password = new_email("js-aged"), "Strong-pass-42"
    created = httpx.post(f"{server.url}/auth/v1/admin/users", headers=admin_headers_of(server),
                         json={"email": email, "password": password, "email_confirm": True})
    assert created.status_code == 200, created.text
    session = httpx.post(f"{server.url}/auth/v1/token?grant_type=password", headers={"apikey": server.anon_key},
                         json={"email": email, "password": password}).json()
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("update auth.sessions set created_at = now() - interval '25 hours' where user_id = %s",
                     [session["user"]["id"]])
    return email, session["refresh_token"]


@needs_node
def test_supabase_js_against_the_settings(servers: tuple[harness.LiveServer, harness.LiveServer]) -> None:
    main, closed = servers
    email, refresh_token = aged_session(main)
    counts = run_node_suite("auth-settings.suite.mjs", main, SITE_URL=SITE, CLOSED_URL=closed.url, AGED_EMAIL=email,
                            AGED_REFRESH_TOKEN=refresh_token)
    assert counts["pass"] == 7 and counts["skipped"] == 0
