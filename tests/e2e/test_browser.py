"""Browser tests: learning/web/e2e/*.test.mjs in headless Chromium (Debian's, driven by
playwright-core) against a real `supalite serve --seed` with the two-device limit."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from tests import harness

WEB = harness.APP / "web"
SUITES = sorted((WEB / "e2e").glob("*.test.mjs"))
CHROMIUM = Path("/usr/bin/chromium")
# The product's rules: two devices per account, sessions ending after 30 days or 7 idle days,
# the owner and the designated administrator.
E2E_ENV = {"SUPALITE_AUTH_MAX_SESSIONS": "2", "SUPALITE_AUTH_SESSIONS_TIMEBOX": "720h",
           "SUPALITE_AUTH_SESSIONS_INACTIVITY_TIMEOUT": "168h", "SUPALITE_APP_OWNER_EMAIL": "admin@example.com",
           "SUPALITE_APP_CONTACT_ADMIN_EMAIL": "prof@example.com",
           "SUPALITE_APP_CONTACT_WHATSAPP": "+33612345678", "SUPALITE_APP_CONTACT_EMAIL": "contact@example.com"}

pytestmark = [
    pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="chromium is not installed (make test installs it)"),
]


# E2E_WEB_DIST: a build of the app elsewhere than learning/web/dist (`vite build --outDir`), so that
# parallel work on the app does not share one build.
WEB_DIST = Path(os.environ.get("E2E_WEB_DIST") or WEB / "dist")


@pytest.fixture(scope="module")
def seeded_server(database_url: str) -> Iterator[harness.LiveServer]:
    if not (WEB_DIST / "index.html").is_file() or not (WEB / "node_modules" / "playwright-core").is_dir():
        pytest.fail("the web app is not built: run `make test` (it builds learning/web/)")
    server = harness.start_server(database_url, args=["--seed"], extra_env=dict(E2E_ENV, SUPALITE_WEB_DIST=str(WEB_DIST)),
                                  data_dir=harness.scratch_dir("supalite-e2e-"))
    try:
        yield server
    finally:
        server.stop()


# Suites whose live updates need these tables in the supabase_realtime publication
# (learning/migrations/sql/0003_realtime_publication.sql puts them there).
NEEDS_REALTIME = {"messages.test.mjs": {"private_messages"}}


def published_tables(database_url: str) -> set[str]:
    with psycopg.connect(database_url) as conn:
        rows = conn.execute("select tablename from pg_publication_tables where pubname = 'supabase_realtime'").fetchall()
    return {name for (name,) in rows}


def require_live_updates(suite_name: str, database_url: str) -> None:
    """A table missing from the publication is the regression the suite is there to catch (the
    site's live lists would stay still): it fails, with the cause named. It used to be a skip."""
    missing = NEEDS_REALTIME.get(suite_name, set()) - published_tables(database_url)
    if missing:
        pytest.fail(f"{suite_name}: {sorted(missing)} not in the supabase_realtime publication, so the site's"
                    " live updates cannot work (learning/migrations/sql/0003_realtime_publication.sql adds them)")


@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_browser_suite(suite: Path, seeded_server: harness.LiveServer) -> None:
    require_live_updates(suite.name, seeded_server.database_url)
    env = dict(seeded_server.env, BASE_URL=seeded_server.url)
    result = subprocess.run(["node", "--test", "--test-concurrency=1", "--test-reporter=spec", str(suite)], cwd=str(WEB),
                            env=env, capture_output=True, text=True, timeout=600)
    print(result.stdout[-20000:])
    assert result.returncode == 0, f"{suite.name} failed:\n{result.stdout[-8000:]}\n{result.stderr[-4000:]}"
