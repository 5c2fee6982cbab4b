"""Runs tests/js/rest*.test.mjs (the real supabase-js) against this package's own server
and fixture database, independent of the app's migrations."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

JS = Path(__file__).resolve().parent.parent / "js"
SUITES = sorted(JS.glob("rest*.test.mjs"))


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_supabase_js_suite(suite: Path, rest_server, rest_database) -> None:
    env = dict(rest_server.env, SUPABASE_URL=rest_server.url, SUPABASE_ANON_KEY=rest_server.anon_key,
               SUPABASE_SERVICE_KEY=rest_server.service_key, DATABASE_URL=rest_database)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "--test-reporter=spec", str(suite)], cwd=str(JS), env=env,
                            capture_output=True, text=True, timeout=600)
    print(result.stdout[-20000:])
    assert result.returncode == 0, f"{suite.name} failed:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
