"""What every realtime log reader shares (server/realtime/logreader.py), on both logs: a
reader starting skips what committed before it, and the sweep forgets rows older than
KEEP_S, keeping the newer ones."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg import sql

from server.realtime.logreader import KEEP_S, LogReader


class Reader(LogReader):
    async def read(self) -> bool:
        return False


@pytest.mark.parametrize("table", ["bus", "changes"])
def test_a_reader_starts_past_the_log_and_the_sweep_keeps_recent_rows(database_url: str, table: str) -> None:
    rows = {"bus": "insert into realtime.bus (body, created_at) values ('{}', now() - make_interval(secs => %s))"
                   " returning id",
            "changes": "insert into realtime.changes (entity, schema_name, table_name, action, created_at)"
                       " values (0, 'public', 't', 'INSERT', now() - make_interval(secs => %s)) returning id"}[table]

    async def run() -> tuple[list[int], list[int], int | None]:
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            added = []
            for age in (KEEP_S + 60, KEEP_S - 60, 0):
                row = await (await conn.execute(rows, [age])).fetchone()
                assert row is not None
                added.append(row[0])
            reader = Reader(table, table)
            await reader.skip_to_now(conn)
            await reader.sweep(conn)
            cur = await conn.execute(sql.SQL("select id from {} order by id").format(sql.Identifier("realtime", table)))
            return added, [row[0] for row in await cur.fetchall()], reader.cursor

    added, left, cursor = asyncio.run(run())
    assert cursor == added[-1]
    assert left == added[1:]
