"""The REST service's own connections (as `authenticator`), used only through flights.

Why not the shared psycopg_pool: its checkout and return (locks, stats, logging, a
connection context, a background task per return when a reset is configured) cost more
than a cached read's own Python work. Here a checkout is a list pop, and nothing but
flights ever does I/O on these connections.

Connections open on demand up to `max_size`; a broken one (server restart, network) is
dropped when found and replaced by the next borrower. Borrowers wait in line, for at most
`timeout` seconds (then PoolTimeout, which the service answers 504 PGRST003, as before).
"""

from __future__ import annotations

import asyncio
import logging
import select
from collections import deque

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from server.rest.flight import wait_socket

log = logging.getLogger("supalite.rest")


class Lease:
    """A connection lent by the pool; flights wait on its socket through it."""

    __slots__ = ("conn", "fd")

    def __init__(self, conn: AsyncConnection) -> None:
        self.conn = conn
        self.fd = conn.pgconn.socket

    async def wait(self, write: bool = False) -> None:
        # Registered with the loop for the wait only, as psycopg does. Keeping the socket
        # registered for the connection's life saves a few system calls a request; it was
        # tried and dropped: under load it came with rare multi-second waits.
        await wait_socket(self.fd, write)

    def detach(self) -> None:
        """Nothing stays registered between waits (see `wait`)."""

    @property
    def usable(self) -> bool:
        conn = self.conn
        return not conn.closed and conn.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE

    def alive(self) -> bool:
        """Usable, and silent: an idle connection has nothing to say (it never LISTENs), so a
        readable socket means the server is closing it (shutdown, terminate, idle timeout).
        One zero-timeout poll, at checkout, so a dead connection never meets a request."""
        return self.usable and not select.select([self.fd], [], [], 0)[0]

    async def close(self) -> None:
        await self.conn.close()


class RestPool:
    def __init__(self, conninfo: str, max_size: int, timeout: float = 30.0) -> None:
        self.conninfo = conninfo
        self.max_size = max(1, max_size)
        self.timeout = timeout
        self._idle: list[Lease] = []
        self._waiting: deque[asyncio.Future[Lease | None]] = deque()
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

    async def _connect(self) -> Lease:
        # autocommit: every flight brings its own BEGIN/COMMIT (or runs as one implicit transaction)
        conn = await AsyncConnection.connect(self.conninfo, autocommit=True)
        return Lease(conn)

    async def acquire(self) -> Lease:
        while self._idle:
            item = self._idle.pop()
            if item.alive():
                return item
            await self._discard(item)
        if self._size < self.max_size and not self._closed:
            self._size += 1
            try:
                return await self._connect()
            except BaseException:
                self._size -= 1
                raise
        fut: asyncio.Future[Lease | None] = asyncio.get_running_loop().create_future()
        self._waiting.append(fut)
        try:
            item = await asyncio.wait_for(fut, self.timeout)
        except asyncio.TimeoutError:
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

    async def release(self, item: Lease) -> None:
        if not item.usable or self._closed:
            await self._discard(item)
            self._hand_over(None)  # a waiter may open a fresh connection in its place
            return
        if not self._hand_over(item):
            self._idle.append(item)

    def _hand_over(self, item: Lease | None) -> bool:
        while self._waiting:
            fut = self._waiting.popleft()
            if not fut.done():
                fut.set_result(item)
                return True
        return False

    async def _discard(self, item: Lease) -> None:
        self._size -= 1
        try:
            await item.close()
        except Exception:  # already broken: nothing more to release
            log.debug("rest: closing a broken connection failed", exc_info=True)
