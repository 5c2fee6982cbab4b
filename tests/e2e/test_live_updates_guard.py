"""The browser suites never skip the regression they are there to catch: with private_messages
out of the supabase_realtime publication (the site's live lists would stay still), the messages
suite fails, naming the cause, before any browser starts."""

from __future__ import annotations

from types import SimpleNamespace

import psycopg
import pytest

from tests.e2e import test_browser as browser_suites


def test_a_table_missing_from_the_publication_fails_the_messages_suite(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("alter publication supabase_realtime drop table public.private_messages")
    suite = browser_suites.WEB / "e2e" / "messages.test.mjs"
    server = SimpleNamespace(database_url=database_url, env={}, url="http://127.0.0.1:9")  # never reached
    try:
        browser_suites.test_browser_suite(suite, server)  # type: ignore[arg-type]
    except pytest.skip.Exception as skipped:
        pytest.fail(f"the regression was skipped: {skipped}")
    except pytest.fail.Exception as failed:
        assert "private_messages" in str(failed) and "supabase_realtime" in str(failed)
    else:
        pytest.fail("the suite passed without private_messages in the publication")
