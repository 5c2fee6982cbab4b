"""The cross-process bus: what one server process publishes for the others (broadcasts,
presence diffs) and what the database publishes (realtime.send, realtime.messages inserts),
as one ordered log, realtime.bus (platform_schema/0340).

Ids follow commit order (appended under the change log's commit lock), so each process
reads "id > last read" with a cursor of its own and never skips a message nor reads one
twice: NOTIFY on `realtime_bus` only wakes the reader, and a reader whose listener was
reconnecting (or whose notification was lost) catches up at the next wake, or within
POLL_EVERY_S at worst. A NOTIFY payload carried the message before, and a message sent
while a listener reconnected was lost.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import psycopg

from server.context import AppContext
from server.db.health import is_unavailable

log = logging.getLogger("supalite.realtime")

CHANNEL = "realtime_bus"
BATCH = 500
POLL_EVERY_S = 1.0  # a safety net: NOTIFY normally wakes the reader at once

_READ_SQL = "select id, node, body from realtime.bus where id > %s order by id limit %s"
# Read messages stay 10 minutes: a process that lags catches up within them.
_SWEEP_SQL = "delete from realtime.bus where created_at < now() - interval '10 minutes'"

OnMessage = Callable[[dict[str, Any]], Awaitable[None]]


class PublishError(Exception):
    """The message could not be handed to the other processes (the database did not take it)."""

    def __init__(self, unavailable: bool) -> None:
        super().__init__("realtime: could not publish to the other processes")
        self.unavailable = unavailable


class Bus:
    def __init__(self, ctx: AppContext, node: str, on_message: OnMessage) -> None:
        self.ctx = ctx
        self.node = node
        self.on_message = on_message
        self.cursor: int | None = None  # the last id read; None until start()
        self._wake = asyncio.Event()

    @property
    def started(self) -> bool:
        return self.cursor is not None

    async def start(self) -> None:
        """Read from now on: messages published before this process started are not its own."""
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute("select coalesce(max(id), 0) from realtime.bus")
            row = await cur.fetchone()
        self.cursor = int(row[0]) if row else 0

    def wake(self) -> None:
        self._wake.set()

    async def publish(self, body: dict[str, Any]) -> None:
        """Append to the log for every other process; raises PublishError when it cannot."""
        text = orjson.dumps(body).decode()
        try:
            async with self.ctx.admin_pool.connection() as conn:
                await conn.execute("select realtime.bus_publish(%s, %s)", [self.node, text])
        except Exception as exc:
            if not isinstance(exc, psycopg.Error) and not is_unavailable(exc):
                raise
            log.warning("realtime: could not publish to other processes: %s", exc)
            raise PublishError(is_unavailable(exc)) from None

    async def run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), POLL_EVERY_S)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                if self.cursor is None:
                    await self.start()
                while await self._read():
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("realtime: reading the bus failed (%s); retrying", exc)
                await asyncio.sleep(0.5)

    async def _read(self) -> bool:
        """Deliver one batch; True when more may be waiting."""
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(_READ_SQL, [self.cursor, BATCH])
            rows = await cur.fetchall()
        for message_id, node, body in rows:
            self.cursor = int(message_id)
            if node is not None and str(node) == self.node:
                continue  # delivered here when it was published
            try:
                message = orjson.loads(body)
            except orjson.JSONDecodeError:
                continue
            if isinstance(message, dict):
                await self.on_message(message)
        return len(rows) == BATCH

    async def sweep(self, conn: psycopg.AsyncConnection[Any]) -> None:
        """Forget messages every process has had the time to read."""
        await conn.execute(_SWEEP_SQL)
