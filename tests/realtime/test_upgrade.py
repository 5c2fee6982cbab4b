"""A database whose realtime schema predates commit-order capture is upgraded at start: the
immediate capture triggers of 0300 become deferred ones, and the change log loses its xid."""

from __future__ import annotations

import psycopg

from server.provision.migrate import apply_platform_schema
from tests.realtime.support import published_table

CAPTURE = """
select t.tgrelid::regclass::text, t.tginitdeferred from pg_trigger t
where t.tgname = 'supalite_realtime_capture' and t.tgrelid = 'public.up_notes'::regclass
"""


def test_capture_triggers_of_an_older_schema_become_deferred(database_url: str) -> None:
    published_table(database_url, "up_notes")
    with psycopg.connect(database_url, autocommit=True) as conn:
        # The state 0300 left: an immediate trigger, an xid column, 0310 not applied.
        conn.execute("drop trigger supalite_realtime_capture on public.up_notes")
        conn.execute("create trigger supalite_realtime_capture after insert or update or delete on public.up_notes"
                     " for each row execute function realtime.capture_change()")
        conn.execute("alter table realtime.changes add column xid xid8 not null default pg_current_xact_id()")
        conn.execute("delete from supalite.platform_migrations where version = '0310_realtime_commit_order.sql'")
        assert conn.execute(CAPTURE).fetchall() == [("up_notes", False)]
        assert apply_platform_schema(conn) == ["0310_realtime_commit_order.sql"]
        assert conn.execute(CAPTURE).fetchall() == [("up_notes", True)]
        columns = {r[0] for r in conn.execute(
            "select attname from pg_attribute where attrelid = 'realtime.changes'::regclass and attnum > 0 and not attisdropped")}
        assert "xid" not in columns and "old_row" in columns
