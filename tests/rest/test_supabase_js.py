"""Runs tests/js/rest*.test.mjs (the real supabase-js) against this package's own server
and fixture database, independent of the app's migrations."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.js.node_suite import JS, needs_node, run_node_suite

SUITES = sorted(JS.glob("rest*.test.mjs"))


@needs_node
@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_supabase_js_suite(suite: Path, rest_server, rest_database) -> None:
    run_node_suite(suite, rest_server)
