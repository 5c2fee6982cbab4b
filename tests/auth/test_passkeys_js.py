"""supabase-js passkeys and WebAuthn MFA (tests/js/auth-passkeys*.suite.mjs) against a server
with passkeys and WebAuthn factors enabled, the relying party localhost."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import harness
from tests.auth.conftest import auth_server
from tests.js.node_suite import JS, needs_node, run_node_suite

ORIGIN = "http://localhost:3000"


@pytest.fixture(scope="module")
def webauthn_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_PASSKEY_ENABLED": "true", "GOTRUE_WEBAUTHN_RP_ID": "localhost", "GOTRUE_WEBAUTHN_RP_ORIGINS": ORIGIN,
        "GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED": "true", "GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED": "true",
    }) as server:
        yield server


@needs_node
@pytest.mark.parametrize("suite", sorted(p.name for p in JS.glob("auth-passkeys*.suite.mjs")))
def test_supabase_js(webauthn_server: harness.LiveServer, suite: str) -> None:
    counts = run_node_suite(suite, webauthn_server, WEBAUTHN_ORIGIN=ORIGIN)
    assert counts["skipped"] == 0 and counts["fail"] == 0
    assert counts["pass"] >= 1, counts
