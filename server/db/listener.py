"""A LISTEN connection that survives database restarts, shared by the services that react
to NOTIFY (schema reloads, realtime changes and bus, the storage reaper)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable

import psycopg
from psycopg import sql

from server.db import health

log = logging.getLogger("supalite.listener")

# Capped low: a listener is back within about a second of the database.
MAX_BACKOFF = 1.0

OnConnect = Callable[[], Awaitable[None] | None]
OnNotify = Callable[[psycopg.Notify], Awaitable[None] | None]


async def _call(callback: Callable[..., Awaitable[None] | None], *args: object) -> None:
    result = callback(*args)
    if result is not None:
        await result


async def listen_forever(conninfo: str, channels: Iterable[str], *, name: str,
                         on_connect: OnConnect, on_notify: OnNotify) -> None:
    """LISTEN on `channels` until cancelled, reconnecting with backoff.

    `on_connect` runs after every (re)connection, once listening: notifications sent while
    no connection listened are lost, so it is where a caller catches up.
    """
    backoff = 0.1
    while True:
        try:
            conn = await psycopg.AsyncConnection.connect(conninfo, autocommit=True, application_name=name,
                                                         connect_timeout=health.CONNECT_TIMEOUT)
            health.track(conn)  # a frozen database gets it severed, so this loop reconnects
            async with conn:
                for channel in channels:
                    await conn.execute(sql.SQL("listen {}").format(sql.Identifier(channel)))
                await _call(on_connect)
                backoff = 0.1
                async for notify in conn.notifies():
                    await _call(on_notify, notify)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("%s: connection lost (%s); reconnecting", name, exc)
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)


async def cancel_all(tasks: Iterable[asyncio.Task[None]]) -> None:
    """Cancel background tasks and wait for them, whatever they raise on the way out."""
    tasks = list(tasks)
    for task in tasks:
        task.cancel()
    for task in tasks:
        try:
            await task
        except (asyncio.CancelledError, Exception):
            pass
