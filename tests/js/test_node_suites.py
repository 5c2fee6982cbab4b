"""Runs the tests/js/*.test.mjs of the app and the services with `node --test` against a
live server of its own."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import harness
from tests.js.node_suite import JS, needs_node, run_node_suite

# rest*.test.mjs run against the REST fixture's own server (tests/rest/test_supabase_js.py)
SUITES = sorted(p for p in JS.glob("*.test.mjs") if not p.name.startswith("rest"))


@needs_node
@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_node_suite(suite: Path, live_server: harness.LiveServer) -> None:
    if not (JS / "node_modules" / "@supabase" / "supabase-js").is_dir():
        pytest.fail("tests/js/node_modules is missing: run `make test` (it runs npm ci in tests/js)")
    run_node_suite(suite, live_server)
