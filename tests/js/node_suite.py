"""Runs one tests/js suite file (the real supabase-js) with `node --test` against a live server:
the pytest side of tests/js/support.mjs's environment.

Node 20 has WebSocket (which supabase-js realtime needs) only behind a flag."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests import harness

JS = Path(__file__).resolve().parent
needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
_SUMMARY = re.compile(r"^(?:ℹ|#) (tests|suites|pass|fail|cancelled|skipped|todo) (\d+)$", re.MULTILINE)


def run_node_suite(suite: Path | str, server: harness.LiveServer, **extra_env: str) -> dict[str, int]:
    """Run `suite` (a path, or a file name in tests/js) with SUPABASE_URL, the keys and DATABASE_URL
    of `server` and `extra_env`; fail with the output unless node passes. Returns node's summary
    counts: {"tests": ..., "pass": ..., "fail": ..., "skipped": ..., ...}."""
    name = Path(suite).name
    env = dict(server.env, SUPABASE_URL=server.url, SUPABASE_ANON_KEY=server.anon_key,
               SUPABASE_SERVICE_KEY=server.service_key, DATABASE_URL=server.database_url, **extra_env)
    result = subprocess.run(["node", "--experimental-websocket", "--test", "--test-reporter=spec", str(JS / suite)],
                            cwd=str(JS), env=env, capture_output=True, text=True, timeout=600)
    print(result.stdout[-20000:])
    assert result.returncode == 0, f"{name} failed:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
    return {key: int(count) for key, count in _SUMMARY.findall(result.stdout)}
