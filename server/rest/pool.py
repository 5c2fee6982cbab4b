"""The REST service's own connections (as `authenticator`), used only through flights.

Why not the shared psycopg_pool: its checkout and return (locks, stats, logging, a
connection context, a background task per return when a reset is configured) cost more
than a cached read's own Python work, and every wait on a socket registers and
unregisters it with the event loop (eight system calls a request). Here each
connection's socket is watched once, for its whole life, and a flight just waits on a
future; nothing else ever does I/O on these connections. (Measured both ways on the
2-core machine: about 10% less server CPU per cached read; the rare long waits seen under
heavy machine load happen with either.)

Connections open on demand up to `max_size`; a broken one (server restart, network) is
dropped when found and replaced by the next borrower. Borrowers wait in line, for at most
`timeout` seconds (then PoolTimeout, which the service answers 504 PGRST003, as before).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from server.db import health
from server.db.health import DatabaseHealth

log = logging.getLogger("supalite.rest")


class Watched:
    """A connection whose socket the loop watches permanently; flights wait through it."""

    __slots__ = ("broken", "conn", "fd", "loop", "waiter")

    def __init__(self, conn: AsyncConnection, loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.fd = conn.pgconn.socket
        self.loop = loop
        self.waiter: asyncio.Future[None] | None = None
        self.broken = False
        loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            if not waiter.done():
                waiter.set_result(None)
            return
        # Readable while nobody waits: a notice, or the server closing the connection.
        # Read it now (the loop would call again and again otherwise).
        try:
            self.conn.pgconn.consume_input()
        except psycopg.Error:
            self.detach()
            self.broken = True

    async def wait(self, write: bool = False) -> None:
        fut = self.loop.create_future()
        if write:  # only when the socket buffer was full: rare, so registered per wait
            self.loop.add_writer(self.fd, lambda: fut.done() or fut.set_result(None))
            try:
                await fut
            finally:
                self.loop.remove_writer(self.fd)
            return
        self.waiter = fut
        try:
            await fut
        finally:
            self.waiter = None

    def detach(self) -> None:
        """Stop watching the socket: before the connection (and its fd) is closed."""
        if self.fd >= 0:
            self.loop.remove_reader(self.fd)
            self.fd = -1

    @property
    def usable(self) -> bool:
        return (not self.broken and not self.conn.closed
                and self.conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE)

    async def close(self) -> None:
        self.detach()
        await self.conn.close()


class RestPool:
    def __init__(self, conninfo: str, max_size: int, timeout: float = 30.0,
                 watchdog: DatabaseHealth | None = None) -> None:
        self.conninfo = conninfo
        self.watchdog = watchdog
        self.max_size = max(1, max_size)
        self.timeout = timeout
        self._idle: list[Watched] = []
        self._waiting: deque[asyncio.Future[Watched | None]] = deque()
        self._size = 0  # open connections, idle or lent, plus those being opened
        self._closed = False

    async def open(self, initial: int = 2) -> None:
        for _ in range(min(initial, self.max_size)):
            self._size += 1
            try:
                self._idle.append(await self._connect())
            except BaseException:
                self._size -= 1
                raise

    async def close(self) -> None:
        self._closed = True
        idle, self._idle = self._idle, []
        for item in idle:
            await item.close()
        for fut in self._waiting:
            if not fut.done():
                fut.set_result(None)

    async def _connect(self) -> Watched:
        # autocommit: every flight brings its own BEGIN/COMMIT (or runs as one implicit transaction)
        conn = await AsyncConnection.connect(self.conninfo, autocommit=True, connect_timeout=health.CONNECT_TIMEOUT)
        health.track(conn)
        return Watched(conn, asyncio.get_running_loop())

    async def acquire(self) -> Watched:
        if self.watchdog is not None:
            self.watchdog.check()  # fail fast while the database is down
        while self._idle:
            item = self._idle.pop()
            if item.usable:
                return item
            await self._discard(item)
        if self._size < self.max_size and not self._closed:
            self._size += 1
            try:
                return await self._connect()
            except BaseException:
                self._size -= 1
                raise
        fut: asyncio.Future[Watched | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(fut)
        try:
            item = await asyncio.wait_for(fut, self.timeout)
        except TimeoutError:
            if not (fut.done() and not fut.cancelled()):
                raise PoolTimeout(f"no REST connection free after {self.timeout} s") from None
            item = fut.result()  # handed over just as the time ran out
        finally:
            if not fut.done():
                fut.cancel()
            try:
                self._waiting.remove(fut)
            except ValueError:
                pass
        if item is None:  # pool closed, or a slot freed for a new connection
            if self._closed:
                raise PoolTimeout("the REST pool is closed")
            self._size += 1
            try:
                return await self._connect()
            except BaseException:
                self._size -= 1
                raise
        return item

    async def release(self, item: Watched) -> None:
        if not item.usable or self._closed:
            await self._discard(item)
            self._hand_over(None)  # a waiter may open a fresh connection in its place
            return
        if not self._hand_over(item):
            self._idle.append(item)

    def _hand_over(self, item: Watched | None) -> bool:
        while self._waiting:
            fut = self._waiting.popleft()
            if not fut.done():
                fut.set_result(item)
                return True
        return False

    async def _discard(self, item: Watched) -> None:
        self._size -= 1
        try:
            await item.close()
        except Exception:  # already broken: nothing more to release
            log.debug("rest: closing a broken connection failed", exc_info=True)
