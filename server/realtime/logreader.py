"""How this process reads realtime's logs (realtime.changes, realtime.bus): in id order, with a
cursor of its own.

A log's ids follow commit order (appended under one commit lock, platform_schema/0310): a
reader that sees an id already sees every committed id below it, so the cursor is the last
id read, and nothing is skipped, even what committed while other transactions stayed open,
nor read twice. NOTIFY only wakes the reader: one whose listener was reconnecting (or whose
notification was lost) catches up at the next wake, or within POLL_EVERY_S at worst. Rows
stay KEEP_S: a process that lags catches up within them.
"""

from __future__ import annotations

import asyncio
import logging
from abc import ABC, abstractmethod
from typing import Any

import psycopg
from psycopg import sql

log = logging.getLogger("supalite.realtime")

BATCH = 500
POLL_EVERY_S = 1.0  # a safety net: NOTIFY normally wakes the reader at once
KEEP_S = 600


class LogReader(ABC):
    def __init__(self, table: str, what: str) -> None:
        self.what = what  # for the log
        self.cursor: int | None = None  # the last id read; None until the reader starts
        self._wake = asyncio.Event()
        name = sql.Identifier("realtime", table)
        self._last_id_sql = sql.SQL("select coalesce(max(id), 0) from {}").format(name)
        self._sweep_sql = sql.SQL("delete from {} where created_at < now() - make_interval(secs => %s)").format(name)

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), POLL_EVERY_S)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                while await self.read():
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("realtime: reading %s failed (%s); retrying", self.what, exc)
                await asyncio.sleep(0.5)

    @abstractmethod
    async def read(self) -> bool:
        """Deliver one batch past the cursor; True when more may be waiting."""

    async def skip_to_now(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Move the cursor past every row committed so far: they are not this reader's."""
        cur = await conn.execute(self._last_id_sql)
        row = await cur.fetchone()
        self.cursor = int(row[0]) if row else 0

    async def sweep(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Forget rows every process has had the time to read."""
        await conn.execute(self._sweep_sql, [KEEP_S])
