"""The cross-process bus: what one server process publishes for the others (broadcasts,
presence diffs) and what the database publishes (realtime.send, realtime.messages inserts),
as one ordered log, realtime.bus (platform_schema/0340), read as logreader.py reads a log.

NOTIFY on `realtime_bus` only wakes the reader. A NOTIFY payload carried the message
before, and a message sent while a listener reconnected was lost.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
import psycopg

from server.core.context import AppContext
from server.core.health import is_unavailable
from server.realtime.logreader import BATCH, LogReader

log = logging.getLogger("supalite.realtime")

CHANNEL = "realtime_bus"

_READ_SQL = "select id, node, body from realtime.bus where id > %s order by id limit %s"

OnMessage = Callable[[dict[str, Any]], Awaitable[None]]


class PublishError(Exception):
    """The message could not be handed to the other processes (the database did not take it)."""


class Bus(LogReader):
    def __init__(self, ctx: AppContext, node: str, on_message: OnMessage) -> None:
        super().__init__("bus", "the bus")
        self.ctx = ctx
        self.node = node
        self.on_message = on_message

    @property
    def started(self) -> bool:
        return self.cursor is not None

    async def start(self) -> None:
        """Read from now on: messages published before this process started are not its own."""
        async with self.ctx.admin_pool.connection() as conn:
            await self.skip_to_now(conn)

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
            raise PublishError("realtime: could not publish to the other processes") from None

    async def read(self) -> bool:
        async with self.ctx.admin_pool.connection() as conn:
            if self.cursor is None:
                await self.skip_to_now(conn)  # start() could not
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
