"""The process's one LISTEN connection, shared by the services that react to NOTIFY (the
schema cache, realtime's changes and bus, the storage reaper), and surviving database
restarts.

Each service subscribes its channels with two callbacks: `on_connect`, run once its
channels are listened to after every (re)connection (notifications sent while nobody
listened are lost, so it is where a service catches up), and `on_notify`. Each subscription
has its own queue and task, so a slow subscriber delays only its own notifications; one
whose callback fails catches up (`on_connect`) after a short backoff, as a lost connection
would have it do.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable

import psycopg
from psycopg import sql

from server.core import health

log = logging.getLogger("supalite.listener")

LISTENER_NAME = "supalite listener"  # application_name of the connection
# Capped low: a listener is back within about a second of the database.
MAX_BACKOFF = 1.0
# Notifications a subscriber may fall behind by; beyond, they are dropped for one catch-up.
MAX_BACKLOG = 10_000

OnConnect = Callable[[], Awaitable[None] | None]
OnNotify = Callable[[psycopg.Notify], Awaitable[None] | None]


class _Connected:
    """Queued for a subscriber when its channels are listened to (again): catch up."""


CONNECTED = _Connected()


async def _call(callback: Callable[..., Awaitable[None] | None], *args: object) -> None:
    result = callback(*args)
    if result is not None:
        await result


class Subscription:
    """One service's channels and callbacks on the shared connection."""

    def __init__(self, listener: Listener, channels: Iterable[str], on_connect: OnConnect,
                 on_notify: OnNotify, name: str) -> None:
        self.listener = listener
        self.channels = frozenset(channels)
        self.name = name
        self.on_connect = on_connect
        self.on_notify = on_notify
        self._queue: deque[psycopg.Notify | _Connected] = deque()
        self._ready = asyncio.Event()
        self.last_arrival = 0.0  # time.monotonic() of the latest notification queued
        self._task = asyncio.create_task(self._deliver(), name=f"listener: {name}")

    def backlog(self) -> list[psycopg.Notify]:
        """The notifications received but not delivered yet (to coalesce a burst)."""
        return [item for item in self._queue if isinstance(item, psycopg.Notify)]

    def take(self, wanted: Callable[[psycopg.Notify], bool]) -> int:
        """Remove the queued notifications `wanted` picks, and say how many: a burst handled
        once, by whoever delivers its first notification."""
        kept = deque(item for item in self._queue if not (isinstance(item, psycopg.Notify) and wanted(item)))
        taken = len(self._queue) - len(kept)
        self._queue = kept
        return taken

    async def close(self) -> None:
        """Stop delivering; the listener stops listening to channels nobody wants."""
        self.listener._unsubscribe(self)
        await cancel_all([self._task])

    def _put(self, item: psycopg.Notify | _Connected) -> None:
        if len(self._queue) >= MAX_BACKLOG:
            log.warning("%s: %d notifications behind; dropping them for a catch-up", self.name, len(self._queue))
            self._queue.clear()
            item = CONNECTED
        elif isinstance(item, psycopg.Notify):
            self.last_arrival = time.monotonic()
        self._queue.append(item)
        self._ready.set()

    async def _deliver(self) -> None:
        backoff = 0.1
        while True:
            if not self._queue:
                self._ready.clear()
                await self._ready.wait()
                continue
            item = self._queue.popleft()
            try:
                if isinstance(item, _Connected):
                    await _call(self.on_connect)
                else:
                    await _call(self.on_notify, item)
                backoff = 0.1
            except Exception as exc:
                what = "catching up" if isinstance(item, _Connected) else "a notification"
                log.warning("%s: %s failed (%s); catching up", self.name, what, exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, MAX_BACKOFF)
                if not (self._queue and isinstance(self._queue[0], _Connected)):
                    self._queue.appendleft(CONNECTED)


class Listener:
    """One LISTEN connection for the whole process, reconnecting with backoff until stopped."""

    def __init__(self, conninfo: str, *, name: str = LISTENER_NAME) -> None:
        self.conninfo = conninfo
        self.name = name
        self._subscriptions: list[Subscription] = []
        self._task: asyncio.Task[None] | None = None
        self._wake: asyncio.Future[None] | None = None
        self.connections = 0  # successful (re)connections so far
        self.connected = False  # listening now (/health reports realtime down while not)

    def subscribe(self, channels: Iterable[str], *, on_connect: OnConnect, on_notify: OnNotify,
                  name: str) -> Subscription:
        """Deliver the notifications of `channels` to `on_notify`; `on_connect` first, and
        after every reconnection. Takes effect at once if the listener is connected."""
        sub = Subscription(self, channels, on_connect, on_notify, name)
        self._subscriptions.append(sub)
        self._poke()
        return sub

    def _unsubscribe(self, sub: Subscription) -> None:
        if sub in self._subscriptions:
            self._subscriptions.remove(sub)
            self._poke()

    def _poke(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        subs, self._subscriptions = self._subscriptions, []
        await cancel_all([*(s._task for s in subs), *([self._task] if self._task else [])])
        self._task = None

    async def _run(self) -> None:
        backoff = 0.1
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.conninfo, autocommit=True, application_name=self.name,
                    connect_timeout=health.CONNECT_TIMEOUT)
            except Exception as exc:
                log.warning("%s: cannot connect (%s); retrying", self.name, exc)
            else:
                health.track(conn)  # a frozen database gets it severed, so this loop reconnects
                before = self.connections
                try:
                    await self._serve(conn)
                except Exception as exc:
                    log.warning("%s: connection lost (%s); reconnecting", self.name, exc)
                    if self.connections > before:
                        backoff = 0.1  # it was listening: retry soon, then back off
                finally:
                    self.connected = False
                    conn.pgconn.finish()
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, MAX_BACKOFF)

    async def _serve(self, conn: psycopg.AsyncConnection) -> None:
        """Listen to what the subscribers want, deliver what arrives; raise when the
        connection is lost."""
        loop = asyncio.get_running_loop()
        pgconn = conn.pgconn
        encoding = conn.info.encoding
        conn.add_notify_handler(self._dispatch)  # those psycopg reads while running LISTEN
        listened: set[str] = set()
        told: set[Subscription] = set()  # subscribers whose on_connect is queued for this connection
        first = True
        while True:
            subs = list(self._subscriptions)
            wanted: set[str] = set().union(*(s.channels for s in subs))
            for channel in sorted(wanted - listened):
                await conn.execute(sql.SQL("listen {}").format(sql.Identifier(channel)))
                listened.add(channel)
            for channel in sorted(listened - wanted):
                await conn.execute(sql.SQL("unlisten {}").format(sql.Identifier(channel)))
                listened.discard(channel)
            for sub in subs:
                if sub not in told and sub.channels <= listened:
                    sub._put(CONNECTED)
                    told.add(sub)
            told.intersection_update(subs)
            if first:
                self.connections += 1
                self.connected = True
                first = False
            # Wait for input, or for a subscription to come or go.
            self._wake = wake = loop.create_future()
            fd = pgconn.socket
            loop.add_reader(fd, self._poke)
            try:
                await wake
            finally:
                loop.remove_reader(fd)
                self._wake = None
            pgconn.consume_input()  # raises when the server closed the connection
            while (pgn := pgconn.notifies()) is not None:
                self._dispatch(psycopg.Notify(pgn.relname.decode(encoding), pgn.extra.decode(encoding), pgn.be_pid))

    def _dispatch(self, notify: psycopg.Notify) -> None:
        for sub in self._subscriptions:
            if notify.channel in sub.channels:
                sub._put(notify)


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
