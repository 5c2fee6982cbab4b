"""Is the database answering? One watchdog per process, and what follows when it is not.

A stopped database refuses connections at once, but a frozen one (SIGSTOP, a hung host, a
network partition) accepts TCP and then never answers: every query, even a cached REST
read, would wait for as long as the freeze lasts. So a watchdog pings the database every
second on a connection of its own. When a ping goes unanswered for `timeout` seconds, or no
connection can be made, the database is *down*:

- every connection the process holds is severed (its socket shut down, not closed, so the
  task waiting on it wakes at once with a connection error instead of waiting on);
- new requests fail at once with `DatabaseUnavailable`, which each service answers 503 in
  its own format;

and once a ping succeeds again it is *up*: idle pooled connections are checked (those of
the old server are dropped), so requests recover without an error of their own.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
import weakref
from collections.abc import Awaitable, Callable, Iterable
from typing import Protocol

import psycopg
from psycopg import AsyncConnection
from psycopg_pool import PoolTimeout

log = logging.getLogger("supalite.db")

PING_INTERVAL = 1.0  # seconds between pings while the database answers
RETRY_INTERVAL = 0.25  # between connection attempts while it does not
CONNECT_TIMEOUT = 3  # libpq's connect_timeout (whole seconds, 2 at least)
DATABASE_UNAVAILABLE = "The database is unavailable; retry in a moment"


class DatabaseUnavailable(Exception):
    """The database is down or frozen: answered 503 by every service, with no details."""


class HasSocket(Protocol):
    @property
    def pgconn(self) -> psycopg.pq.abc.PGconn: ...


# SQLSTATEs of a server that is going away or not yet there (PostgreSQL's class 08, and
# 57P01-57P03: admin/crash shutdown, cannot connect now).
_GONE_STATES = ("57P01", "57P02", "57P03")


# Every database connection of the process (pools, REST, listeners): all go to the one
# database the watchdog pings, so a freeze severs them all. Weak: closed ones drop out.
_TRACKED: weakref.WeakSet[HasSocket] = weakref.WeakSet()


def track(conn: HasSocket) -> None:
    """Remember a connection so that a frozen database gets it severed."""
    _TRACKED.add(conn)


def is_unavailable(exc: BaseException) -> bool:
    """An error meaning "the database is not reachable", not "this statement failed"."""
    if isinstance(exc, (DatabaseUnavailable, PoolTimeout)):
        return True
    if isinstance(exc, psycopg.OperationalError):
        state = exc.sqlstate or ""
        return not state or state.startswith("08") or state in _GONE_STATES
    return isinstance(exc, psycopg.InterfaceError)


def sever(conn: HasSocket) -> None:
    """Shut a connection's socket down in both directions without closing the descriptor.

    Whoever waits on it (psycopg, a REST flight, a LISTEN loop) sees end-of-file and fails
    with a connection error at once; closing the descriptor instead would leave that waiter
    registered on a number the kernel may hand to another socket.
    """
    try:
        fd = conn.pgconn.socket
    except psycopg.OperationalError:  # already closed
        return
    try:
        sock = socket.socket(fileno=fd)
    except OSError:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    finally:
        sock.detach()  # the descriptor stays libpq's


class DatabaseHealth:
    """The watchdog's verdict, the connections to sever, and the hooks run on recovery."""

    def __init__(self, conninfo: str, *, timeout: float = 3.0) -> None:
        self.conninfo = conninfo
        self.timeout = timeout
        self.up = True
        self.changed_at = time.monotonic()
        self.reason = ""
        self.on_recover: list[Callable[[], Awaitable[None]]] = []
        self._task: asyncio.Task[None] | None = None

    # -- what the services call ----------------------------------------------------------

    def check(self) -> None:
        """Fail fast while the database is known to be down."""
        if not self.up:
            raise DatabaseUnavailable(self.reason or "database unavailable")

    def status(self) -> dict[str, object]:
        return {"status": "up" if self.up else "down",
                "since_seconds": round(time.monotonic() - self.changed_at, 1)}

    # -- the watchdog --------------------------------------------------------------------

    async def start(self) -> None:
        self._task = asyncio.create_task(self._watch(), name="supalite-db-watchdog")

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except (asyncio.CancelledError, Exception):
                pass

    async def _watch(self) -> None:
        conn: AsyncConnection | None = None
        while True:
            try:
                if conn is None or conn.closed:
                    conn = await self._connect()
                await ping(conn, self.timeout)
            except asyncio.CancelledError:
                if conn is not None:
                    conn.pgconn.finish()
                raise
            except Exception as exc:
                had_connection = conn is not None and not isinstance(exc, TimeoutError)
                if conn is not None:
                    conn.pgconn.finish()
                    conn = None
                if self.up and had_connection:
                    conn = await self._reconnect()
                    if conn is not None:
                        # Only its connection was ended (an admin's pg_terminate_backend, the
                        # database dropped and created again, a pooler restarted), while the
                        # database answers: no outage, but the pools drop what was ended too.
                        log.info("watchdog: its connection was ended (%s); reconnected", _first_line(exc))
                        await self._run_recovery_hooks()
                        await asyncio.sleep(PING_INTERVAL)
                        continue
                self._mark_down(exc)
                await asyncio.sleep(RETRY_INTERVAL)
                continue
            if not self.up:
                await self._mark_up()
            await asyncio.sleep(PING_INTERVAL)

    async def _connect(self) -> AsyncConnection:
        return await psycopg.AsyncConnection.connect(
            self.conninfo, autocommit=True, connect_timeout=CONNECT_TIMEOUT, application_name="supalite watchdog")

    async def _reconnect(self) -> AsyncConnection | None:
        """A new connection that answers a ping at once, else None (the database is down)."""
        conn: AsyncConnection | None = None
        try:
            conn = await self._connect()
            await ping(conn, self.timeout)
            return conn
        except asyncio.CancelledError:
            if conn is not None:
                conn.pgconn.finish()
            raise
        except Exception:
            if conn is not None:
                conn.pgconn.finish()
            return None

    def _mark_down(self, exc: BaseException) -> None:
        if self.up:
            self.up = False
            self.changed_at = time.monotonic()
            self.reason = "database unavailable"
            log.warning("database unavailable (%s): answering 503 until it is back", _first_line(exc))
        self.sever_all()

    async def _run_recovery_hooks(self) -> None:
        for hook in self.on_recover:
            try:
                await hook()
            except Exception:
                log.warning("database recovery hook failed", exc_info=True)

    def sever_all(self) -> None:
        for conn in list(_TRACKED):
            sever(conn)

    async def _mark_up(self) -> None:
        log.warning("database available again after %.1f s", time.monotonic() - self.changed_at)
        await self._run_recovery_hooks()
        self.up = True
        self.changed_at = time.monotonic()


async def ping(conn: AsyncConnection, timeout: float) -> None:
    """`select 1` answered within `timeout` seconds, else TimeoutError.

    Driven on the raw libpq connection: cancelling a psycopg query on a frozen server would
    itself wait for the server (to cancel it), which is the very thing that does not answer.
    """
    pgconn = conn.pgconn
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    pgconn.send_query(b"select 1")
    while pgconn.flush():
        await _wait_fd(pgconn.socket, deadline, write=True)
    while True:
        pgconn.consume_input()
        if not pgconn.is_busy():
            break
        await _wait_fd(pgconn.socket, deadline)
    ok = False
    while (res := pgconn.get_result()) is not None:
        ok = res.status == psycopg.pq.ExecStatus.TUPLES_OK
    if not ok:
        raise psycopg.OperationalError("ping failed")


async def _wait_fd(fd: int, deadline: float, write: bool = False) -> None:
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[None] = loop.create_future()

    def wake() -> None:
        if not fut.done():
            fut.set_result(None)

    (loop.add_writer if write else loop.add_reader)(fd, wake)
    try:
        await asyncio.wait_for(fut, max(0.0, deadline - loop.time()))
    finally:
        (loop.remove_writer if write else loop.remove_reader)(fd)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[-1] if text else type(exc).__name__


async def check_pools(pools: Iterable[object]) -> None:
    """Drop the idle connections of pools that did not survive the outage."""
    for pool in pools:
        check = getattr(pool, "check", None)
        if check is not None:
            await check()
