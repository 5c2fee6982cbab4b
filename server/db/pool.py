"""Connection pools, one per role per process: `api` logs in as authenticator (each request
switches to its caller's role inside its transaction), `admin` as the owner, for the
platform's own bookkeeping (auth tables, storage metadata, realtime nodes...).

Why not psycopg_pool: its checkout and return (locks, stats, logging, a connection
context, background workers) cost more than a cached REST read's own Python work, and
every wait on a socket registers and unregisters it with the event loop (eight system
calls a request). Here each idle connection's socket is watched once, and a flight
(server/rest/flight.py) just waits on a future. (Measured both ways on the 2-core machine:
about 10% less server CPU per cached read.)

Two ways to borrow:
- `acquire()` / `release()`: a `Watched` connection for flights, which drive libpq
  themselves and wait through the watcher; nothing else does I/O on it meanwhile.
- `async with pool.connection() as conn`: the psycopg AsyncConnection, as psycopg_pool
  lends it (not autocommit; committed at the end of the block when a transaction is open,
  rolled back on an exception). psycopg waits on the socket itself, so the socket is not
  watched while lent that way.

Connections open on demand up to `max_size`; a broken one (server restart, network) is
dropped when found and replaced by the next borrower. Borrowers wait in line for at most
`timeout` seconds, then get psycopg_pool's PoolTimeout (answered 503/504 by each service).
Nothing is reset on return: every service sets role and claims with set_config(..., true),
local to its transaction, and a connection only goes back to the pool idle (not in a
transaction), else it is closed.

The owner's pool is the same class (not psycopg_pool): one implementation of the fault
handling (watchdog fail-fast, severed sockets, cancelled borrowers) for both roles, no
background worker tasks per pool, and the cheaper checkout for auth's busiest paths too.
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from server.db import health
from server.db.health import DatabaseHealth

log = logging.getLogger("supalite.db")

# How long a request waits for a free connection before its service answers an error
# (PostgREST's db-pool-acquisition-timeout default).
ACQUIRE_TIMEOUT = 10.0
CHECK_TIMEOUT = 3.0  # a connection that does not answer `select 1` this fast after an outage is dropped


class Watched:
    """A pooled connection whose socket the loop watches while it is idle or in a flight."""

    __slots__ = ("broken", "conn", "fd", "loop", "waiter")

    def __init__(self, conn: AsyncConnection[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.loop = loop
        self.fd = -1
        self.waiter: asyncio.Future[None] | None = None
        self.broken = False
        self.watch()

    def watch(self) -> None:
        """Watch the socket again (after psycopg had the connection to itself)."""
        if self.fd < 0 and not self.conn.closed:
            self.fd = self.conn.pgconn.socket
            self.loop.add_reader(self.fd, self._readable)

    def _readable(self) -> None:
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None
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

    def readable(self) -> asyncio.Future[None]:
        """A future done when the socket is readable. A future rather than a coroutine: a
        flight awaits it on every request, and a coroutine would be one more level to resume."""
        fut: asyncio.Future[None] = self.loop.create_future()
        self.waiter = fut
        return fut

    async def wait_writable(self) -> None:
        """Only when the socket buffer was full: rare, so registered per wait."""
        fut: asyncio.Future[None] = self.loop.create_future()
        self.loop.add_writer(self.fd, _wake, fut)
        try:
            await fut
        finally:
            self.loop.remove_writer(self.fd)

    def detach(self) -> None:
        """Stop watching the socket: before psycopg waits on it, or the connection closes."""
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


class Pool:
    def __init__(self, conninfo: str, max_size: int, *, name: str, min_size: int = 2,
                 timeout: float = ACQUIRE_TIMEOUT, watchdog: DatabaseHealth | None = None) -> None:
        self.conninfo = conninfo
        self.name = name
        self.max_size = max(1, max_size)
        self.min_size = min(min_size, self.max_size)
        self.timeout = timeout
        self.watchdog = watchdog
        self._idle: list[Watched] = []
        self._waiting: deque[asyncio.Future[Watched | None]] = deque()
        self._size = 0  # open connections, idle or lent, plus those being opened
        self._closed = False

    @property
    def size(self) -> int:
        """Connections open or being opened, idle or lent."""
        return self._size

    @property
    def idle(self) -> int:
        return len(self._idle)

    @property
    def waiting(self) -> int:
        """Borrowers waiting in line for a connection."""
        return sum(1 for fut in self._waiting if not fut.done())

    # -- lifecycle -------------------------------------------------------------------

    async def open(self, wait: bool = True, timeout: float = 30.0) -> None:
        """Open `min_size` connections (at once when `wait` is false, within `timeout` otherwise)."""
        self._closed = False
        want = self.min_size - self._size
        if want <= 0:
            return
        opening = asyncio.gather(*(self._open_idle() for _ in range(want)))
        if not wait:
            opening.add_done_callback(_log_failure)
            return
        try:
            await asyncio.wait_for(opening, timeout)
        except TimeoutError:
            raise PoolTimeout(f"pool {self.name}: no connection within {timeout} s") from None

    async def _open_idle(self) -> None:
        self._size += 1
        try:
            item = await self._connect()
        except BaseException:
            self._size -= 1
            raise
        await self.release(item)

    async def close(self, timeout: float = 5.0) -> None:
        """Close the idle connections; lent ones are closed when given back. Waiting
        borrowers get PoolTimeout. (`timeout`: psycopg_pool's signature; nothing runs in
        the background here, so there is nothing to wait for.)"""
        self._closed = True
        idle, self._idle = self._idle, []
        for item in idle:
            self._size -= 1
            await _close_quietly(item)
        while self._waiting:
            fut = self._waiting.popleft()
            if not fut.done():
                fut.set_result(None)

    async def check(self) -> None:
        """After an outage: ping every idle connection, drop those that do not answer."""
        items, self._idle = self._idle, []
        try:
            while items:
                item = items.pop()
                try:
                    if item.usable:
                        item.detach()  # health.ping waits on the socket itself
                        await health.ping(item.conn, CHECK_TIMEOUT)
                except Exception:
                    item.broken = True
                finally:
                    await self.release(item)  # a ping cut short leaves it busy: dropped
        finally:
            for item in items:  # cancelled midway: the rest go back unchecked
                await self.release(item)

    async def _connect(self) -> Watched:
        if self._closed:
            raise PoolTimeout(f"pool {self.name} is closed")
        # Not autocommit, for the borrowers of connection() (psycopg_pool's behaviour);
        # flights do not care: they send their own BEGIN/COMMIT, or run as one implicit
        # transaction. No automatic preparation by psycopg: having prepared statements, it
        # sends DEALLOCATE ALL after every rollback, which would take the flights' own
        # prepared statements with it.
        conn = await AsyncConnection.connect(self.conninfo, prepare_threshold=None,
                                             connect_timeout=health.CONNECT_TIMEOUT,
                                             application_name=f"supalite {self.name}")
        health.track(conn)  # a frozen database gets it severed
        return Watched(conn, asyncio.get_running_loop())

    # -- borrowing -------------------------------------------------------------------

    async def acquire(self, timeout: float | None = None) -> Watched:
        """An idle connection for a flight; give it back with `release`."""
        if self.watchdog is not None:
            self.watchdog.check()  # fail fast while the database is down
        while self._idle:
            item = self._idle.pop()
            if item.usable:
                return item
            await self._discard(item)
        if self._size < self.max_size:
            return await self._open_new()
        handed = await self._wait_in_line(self.timeout if timeout is None else timeout)
        if handed is None:  # a slot freed (a connection was dropped): open one in its place
            return await self._open_new()
        return handed

    async def _open_new(self) -> Watched:
        self._size += 1
        try:
            return await self._connect()
        except BaseException:
            self._size -= 1
            self._hand_over(None)  # the slot is free again for whoever waits
            raise

    async def _wait_in_line(self, timeout: float) -> Watched | None:
        if self._closed:
            raise PoolTimeout(f"pool {self.name} is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Watched | None] = loop.create_future()
        self._waiting.append(fut)
        timer = loop.call_later(timeout, _expire, fut, f"no connection free in pool {self.name} after {timeout} s")
        try:
            item = await fut
        except BaseException:
            # Cancelled after a connection (or a free slot) was handed over: pass it on.
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                handed = fut.result()
                if handed is not None:
                    await self.release(handed)
                else:
                    self._hand_over(None)
            raise
        finally:
            timer.cancel()
            try:
                self._waiting.remove(fut)
            except ValueError:
                pass
        if item is None and self._closed:
            raise PoolTimeout(f"pool {self.name} is closed")
        return item

    async def release(self, item: Watched) -> None:
        """Give a connection back: handed to the next in line, kept idle, or dropped when it
        is broken or left in a transaction."""
        if not item.usable or self._closed:
            await self._discard(item)
            self._hand_over(None)  # a waiter may open a fresh connection in its place
            return
        item.watch()
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
        await _close_quietly(item)

    @asynccontextmanager
    async def connection(self, timeout: float | None = None) -> AsyncIterator[AsyncConnection[Any]]:
        """The connection itself, as psycopg_pool lends it: committed at the end of the block
        if a transaction is open, rolled back on an exception, usable again afterwards."""
        item = await self.acquire(timeout)
        item.detach()  # psycopg waits on the socket itself while it has the connection
        conn = item.conn
        try:
            yield conn
        except BaseException:
            if not conn.closed:
                try:
                    await conn.rollback()
                except Exception as exc:  # the error on its way out matters more
                    log.warning("pool %s: rollback of a failed block failed: %s", self.name, exc)
            raise
        else:
            if not conn.closed:
                await conn.commit()
        finally:
            await self.release(item)


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def _expire(fut: asyncio.Future[Watched | None], message: str) -> None:
    if not fut.done():
        fut.set_exception(PoolTimeout(message))


async def _close_quietly(item: Watched) -> None:
    try:
        await item.close()
    except Exception:  # already broken: nothing more to release
        log.debug("closing a broken connection failed", exc_info=True)


def _log_failure(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.warning("opening pooled connections failed: %s", task.exception())


def make_pool(conninfo: str, size: int, name: str, watchdog: DatabaseHealth | None = None) -> Pool:
    return Pool(conninfo, size, name=name, min_size=min(2, size), watchdog=watchdog)
