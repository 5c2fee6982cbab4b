"""Runs the tests/js/*.test.mjs of the app and the services with `node --test` against a
live server of its own.

Node 20 has WebSocket (which supabase-js realtime needs) only behind a flag."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests import harness

HERE = Path(__file__).parent
# rest*.test.mjs run against the REST fixture's own server (tests/rest/test_supabase_js.py)
SUITES = sorted(p for p in HERE.glob("*.test.mjs") if not p.name.startswith("rest"))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_node_suite(suite: Path, live_server: harness.LiveServer) -> None:
    if not (HERE / "node_modules" / "@supabase" / "supabase-js").is_dir():
        pytest.fail("tests/js/node_modules is missing: run `make test` (it runs npm ci in tests/js)")
    env = dict(live_server.env, SUPABASE_URL=live_server.url, SUPABASE_ANON_KEY=live_server.anon_key,
               SUPABASE_SERVICE_KEY=live_server.service_key, DATABASE_URL=live_server.database_url)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "--test-reporter=spec", str(suite)], cwd=str(HERE), env=env,
                            capture_output=True, text=True, timeout=600)
    print(result.stdout[-20000:])
    assert result.returncode == 0, f"{suite.name} failed:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
