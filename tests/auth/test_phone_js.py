"""supabase-js's phone sign-in (tests/js/auth-phone.suite.mjs) against a server with the phone
provider on; the suite is not a *.test.mjs, so test_node_suites.py does not run it against the
default server (phone off)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import harness
from tests.auth.conftest import auth_server
from tests.js.node_suite import needs_node, run_node_suite

TEST_PHONE, TEST_OTP = "15555550199", "424242"


@pytest.fixture(scope="module")
def phone_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {"GOTRUE_EXTERNAL_PHONE_ENABLED": "true",
                                    "GOTRUE_SMS_TEST_OTP": f"{TEST_PHONE}:{TEST_OTP}"}) as server:
        yield server


@needs_node
def test_supabase_js_phone_sign_in(phone_server: harness.LiveServer) -> None:
    counts = run_node_suite("auth-phone.suite.mjs", phone_server, TEST_PHONE=TEST_PHONE, TEST_OTP=TEST_OTP)
    assert counts["pass"] == 4 and counts["skipped"] == 0
