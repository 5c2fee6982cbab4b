"""supabase-js against the external-provider and PKCE flows: tests/js/auth-oauth.suite.mjs and
tests/js/auth-pkce.suite.mjs, on a server of their own (mail confirmations on, manual linking on,
the local OIDC provider configured as "keycloak")."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import auth_server
from tests.js.node_suite import needs_node, run_node_suite

SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {**provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE,
                                    "GOTRUE_MAILER_AUTOCONFIRM": "false",
                                    "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"}) as live:
        yield live


@needs_node
@pytest.mark.parametrize("suite", ["auth-pkce.suite.mjs", "auth-oauth.suite.mjs"])
def test_supabase_js(suite: str, server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    counts = run_node_suite(suite, server, SITE_URL=SITE, OIDC_ISSUER=provider.issuer)
    assert counts["fail"] == 0
