"""supabase-js's phone sign-in (tests/js/auth-phone.suite.mjs) against a server with the phone
provider on; the suite is not a *.test.mjs, so test_node_suites.py does not run it against the
default server (phone off)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import harness

JS = Path(__file__).resolve().parent.parent / "js"
TEST_PHONE, TEST_OTP = "15555550199", "424242"


@pytest.fixture(scope="module")
def phone_server(database_url: str) -> Iterator[harness.LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_TEST_OTP": f"{TEST_PHONE}:{TEST_OTP}"})
    yield server
    server.stop()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_supabase_js_phone_sign_in(phone_server: harness.LiveServer) -> None:
    env = dict(phone_server.env, SUPABASE_URL=phone_server.url, SUPABASE_ANON_KEY=phone_server.anon_key,
               SUPABASE_SERVICE_KEY=phone_server.service_key, TEST_PHONE=TEST_PHONE, TEST_OTP=TEST_OTP)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "auth-phone.suite.mjs"], cwd=str(JS),
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
    assert "# pass 4" in result.stdout and "# skipped 0" in result.stdout
