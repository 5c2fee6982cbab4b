"""supabase-js against the external-provider and PKCE flows: tests/js/auth-oauth.suite.mjs and
tests/js/auth-pkce.suite.mjs, on a server of their own (mail confirmations on, manual linking on,
the local OIDC provider configured as "keycloak")."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import harness
from tests.auth import oidc_provider

JS = Path(__file__).resolve().parent.parent / "js"
SITE = "http://localhost:3000"


@pytest.fixture(scope="module")
def provider() -> Iterator[oidc_provider.RunningProvider]:
    with oidc_provider.running() as running:
        yield running


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    live = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        **provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE, "GOTRUE_MAILER_AUTOCONFIRM": "false",
        "GOTRUE_SECURITY_MANUAL_LINKING_ENABLED": "true"})
    yield live
    live.stop()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("suite", ["auth-pkce.suite.mjs", "auth-oauth.suite.mjs"])
def test_supabase_js(suite: str, server: harness.LiveServer, provider: oidc_provider.RunningProvider) -> None:
    env = dict(server.env, SUPABASE_URL=server.url, SUPABASE_ANON_KEY=server.anon_key,
               SUPABASE_SERVICE_KEY=server.service_key, SITE_URL=SITE, OIDC_ISSUER=provider.issuer)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "--test-reporter=spec", suite], cwd=str(JS),
                            env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-8000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout or " fail 0" in result.stdout
