"""supabase-js passkeys and WebAuthn MFA (tests/js/auth-passkeys*.suite.mjs) against a server
with passkeys and WebAuthn factors enabled, the relying party localhost."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import harness

JS = Path(__file__).resolve().parent.parent / "js"
ORIGIN = "http://localhost:3000"


@pytest.fixture(scope="module")
def webauthn_server(database_url: str) -> Iterator[harness.LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN,
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true"})
    yield server
    server.stop()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("suite", sorted(p.name for p in JS.glob("auth-passkeys*.suite.mjs")))
def test_supabase_js(webauthn_server: harness.LiveServer, suite: str) -> None:
    env = dict(webauthn_server.env, SUPABASE_URL=webauthn_server.url, SUPABASE_ANON_KEY=webauthn_server.anon_key,
               SUPABASE_SERVICE_KEY=webauthn_server.service_key, WEBAUTHN_ORIGIN=ORIGIN)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "--test-reporter=spec", suite], cwd=str(JS),
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-4000:]
    assert "skipped 0" in result.stdout and "fail 0" in result.stdout
    assert re.search(r"\bpass [1-9]", result.stdout), result.stdout[-2000:]
