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

A reserve of `reserve` connections is kept for quick work: a borrower names the shape of
its work (REST: its statement), and a shape seen holding its connection past the budget
(server.core.slow_shapes) may hold only `max_size - reserve` connections at once; beyond, it
waits in line while the quick ones behind it are served. A borrower counts as slow from the
moment it passes the budget (a sweep every half budget while borrowers are out: a timer per
borrower cost more than the rest of the bookkeeping), so a wave of new slow requests gives
the reserve back as soon as enough of them end. (Without it, a one-row read waited its turn behind every slow search
queued before it: 6 s with the pool full of them.) Borrowers naming no shape are quick.

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
import math
from collections import deque
from collections.abc import AsyncIterator, Hashable
from contextlib import asynccontextmanager
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

from server.core import health
from server.core.health import DatabaseHealth
from server.core.slow_shapes import SlowShapes

log = logging.getLogger("supalite.db")

# How long a request waits for a free connection before its service answers an error
# (PostgREST's db-pool-acquisition-timeout default).
ACQUIRE_TIMEOUT = 10.0
CHECK_TIMEOUT = 3.0  # a connection that does not answer `select 1` this fast after an outage is dropped


class Watched:
    """A pooled connection whose socket the loop watches while it is idle or in a flight."""

    __slots__ = ("broken", "conn", "fd", "lent_at", "loop", "shape", "slow", "waiter")

    def __init__(self, conn: AsyncConnection[Any], loop: asyncio.AbstractEventLoop) -> None:
        self.conn = conn
        self.loop = loop
        self.fd = -1
        self.waiter: asyncio.Future[None] | None = None
        self.broken = False
        self.shape: Hashable | None = None  # what the borrower runs
        self.lent_at = 0.0  # loop time it was lent at; inf once found past the budget
        self.slow = False  # counted against the share of the slow shapes
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


class _Waiter:
    """A borrower waiting in line, with the shape of its work."""

    __slots__ = ("fut", "shape", "slow")

    def __init__(self, fut: asyncio.Future[Watched | None], shape: Hashable | None) -> None:
        self.fut = fut
        self.shape = shape
        self.slow = False  # admitted as a slow shape (set when handed a connection or a slot)


class Pool:
    def __init__(self, conninfo: str, max_size: int, *, name: str, min_size: int = 2,
                 timeout: float = ACQUIRE_TIMEOUT, watchdog: DatabaseHealth | None = None,
                 reserve: int = 0, slow_budget: float = 0.25) -> None:
        self.conninfo = conninfo
        self.name = name
        self.max_size = max(1, max_size)
        self.min_size = min(min_size, self.max_size)
        self.timeout = timeout
        self.watchdog = watchdog
        # Slow shapes always keep one connection: a reserve of the whole pool would starve them.
        self.reserve = max(0, min(reserve, self.max_size - 1))
        self.slow = SlowShapes(slow_budget) if self.reserve else None
        self._slow_share = self.max_size - self.reserve  # connections slow shapes may hold at once
        self._slow_lent = 0  # connections (or slots being opened) lent to slow shapes
        self._timed: set[Watched] = set()  # lent with a shape: swept for those past the budget
        self._sweep: asyncio.TimerHandle | None = None
        self._idle: list[Watched] = []
        self._waiting: deque[_Waiter] = deque()
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
        return sum(1 for waiter in self._waiting if not waiter.fut.done())

    @property
    def slow_lent(self) -> int:
        """Connections lent to slow borrowers: admitted as slow shapes (at most max_size -
        reserve), or taken as quick and past the budget since (they may exceed it)."""
        return self._slow_lent

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
            fut = self._waiting.popleft().fut
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

    async def acquire(self, timeout: float | None = None, shape: Hashable | None = None) -> Watched:
        """An idle connection for a flight; give it back with `release`. `shape`: what the
        borrower runs; a shape seen running past the budget stays out of the reserve."""
        if self.watchdog is not None:
            self.watchdog.check()  # fail fast while the database is down
        slow = self._is_slow(shape)
        while not slow or self._slow_lent < self._slow_share:
            if self._idle:
                item = self._idle.pop()
                if not item.usable:
                    await self._discard(item)
                    continue
                self._slow_lent += slow
                return self._lend(item, shape, slow)
            if self._size < self.max_size:
                self._slow_lent += slow  # counted before the connection opens: others see it
                return self._lend(await self._open_new(slow), shape, slow)
            break
        handed, slow = await self._wait_in_line(self.timeout if timeout is None else timeout, shape)
        if handed is None:  # a slot freed (a connection was dropped): open one in its place
            handed = await self._open_new(slow)
        return self._lend(handed, shape, slow)

    def _is_slow(self, shape: Hashable | None) -> bool:
        return shape is not None and self.slow is not None and shape in self.slow

    def _lend(self, item: Watched, shape: Hashable | None, slow: bool) -> Watched:
        item.slow = slow
        if shape is not None and self.slow is not None:
            item.shape = shape
            item.lent_at = item.loop.time()
            self._timed.add(item)
            if self._sweep is None:
                self._sweep = item.loop.call_later(self.slow.budget / 2, self._sweep_overruns)
        return item

    def _sweep_overruns(self) -> None:
        """Borrowers holding their connection past the budget: their shape is slow from now
        on, and so are they (the reserve one may have taken is given back when it ends)."""
        self._sweep = None
        if self.slow is None or not self._timed:
            return
        loop = asyncio.get_running_loop()
        since = loop.time() - self.slow.budget
        for item in self._timed:
            if item.lent_at <= since and item.shape is not None:
                item.lent_at = math.inf  # found: not again
                self.slow.mark(item.shape)
                if not item.slow:
                    item.slow = True
                    self._slow_lent += 1
        self._sweep = loop.call_later(self.slow.budget / 2, self._sweep_overruns)

    async def _open_new(self, slow: bool = False) -> Watched:
        """A new connection in a free slot (already counted in the slow share when `slow`)."""
        self._size += 1
        try:
            return await self._connect()
        except BaseException:
            self._size -= 1
            self._slow_lent -= slow
            self._hand_over(None)  # the slot is free again for whoever waits
            raise

    async def _wait_in_line(self, timeout: float, shape: Hashable | None) -> tuple[Watched | None, bool]:
        """What `_hand_over` gives this borrower (a connection, or None: a free slot to open
        one in), and whether it was admitted as a slow shape."""
        if self._closed:
            raise PoolTimeout(f"pool {self.name} is closed")
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Watched | None] = loop.create_future()
        waiter = _Waiter(fut, shape)
        self._waiting.append(waiter)
        timer = loop.call_later(timeout, _expire, fut, f"no connection free in pool {self.name} after {timeout} s")
        try:
            item = await fut
        except BaseException:
            # Cancelled after a connection (or a free slot) was handed over: pass it on.
            if fut.done() and not fut.cancelled() and fut.exception() is None:
                handed = fut.result()
                if handed is not None:
                    handed.slow = waiter.slow
                    await self.release(handed)
                else:
                    self._slow_lent -= waiter.slow
                    self._hand_over(None)
            raise
        finally:
            timer.cancel()
            try:
                self._waiting.remove(waiter)
            except ValueError:
                pass
        if item is None and self._closed:
            raise PoolTimeout(f"pool {self.name} is closed")
        return item, waiter.slow

    async def release(self, item: Watched) -> None:
        """Give a connection back: handed to the next in line, kept idle, or dropped when it
        is broken or left in a transaction."""
        if item.shape is not None:
            self._timed.discard(item)
            item.shape = None
        if item.slow:
            item.slow = False
            self._slow_lent -= 1
        if not item.usable or self._closed:
            await self._discard(item)
            self._hand_over(None)  # a waiter may open a fresh connection in its place
            return
        item.watch()
        if not self._hand_over(item):
            self._idle.append(item)

    def _hand_over(self, item: Watched | None) -> bool:
        """Give a connection (or a free slot: None) to the first in line who may take it: a
        slow shape only while the slow ones hold less than their share."""
        if not self._waiting:
            return False
        for waiter in list(self._waiting):
            if waiter.fut.done():  # timed out or cancelled: its borrower removes it
                continue
            slow = self._is_slow(waiter.shape)
            if slow and self._slow_lent >= self._slow_share:
                continue
            self._waiting.remove(waiter)
            waiter.slow = slow
            self._slow_lent += slow
            waiter.fut.set_result(item)
            return True
        return False

    async def _discard(self, item: Watched) -> None:
        self._size -= 1
        await _close_quietly(item)

    @asynccontextmanager
    async def connection(self, timeout: float | None = None,
                         shape: Hashable | None = None) -> AsyncIterator[AsyncConnection[Any]]:
        """The connection itself, as psycopg_pool lends it: committed at the end of the block
        if a transaction is open, rolled back on an exception, usable again afterwards."""
        item = await self.acquire(timeout, shape)
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


def make_pool(conninfo: str, size: int, name: str, watchdog: DatabaseHealth | None = None,
              reserve: int = 0, slow_budget: float = 0.25) -> Pool:
    return Pool(conninfo, size, name=name, min_size=min(2, size), watchdog=watchdog, reserve=reserve,
                slow_budget=slow_budget)
