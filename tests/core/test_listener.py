"""server/core/listener.py against a real PostgreSQL: one connection for every subscriber,
catch-up on connect, delivery, reconnection, a slow or failing subscriber."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import psycopg

from server.core.listener import Listener
from tests.harness import until


class Recorder:
    """A subscriber's callbacks: counts its catch-ups, keeps its payloads."""

    def __init__(self) -> None:
        self.connects = 0
        self.payloads: list[str] = []
        self.connected = asyncio.Event()

    def on_connect(self) -> None:
        self.connects += 1
        self.connected.set()

    def on_notify(self, notify: psycopg.Notify) -> None:
        self.payloads.append(notify.payload)


def scenario(database_url: str, body: Callable[[Listener, psycopg.AsyncConnection], Awaitable[object]]) -> object:
    async def go() -> object:
        listener = Listener(database_url, name=f"unit listener {uuid.uuid4().hex[:8]}")
        await listener.start()
        try:
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
                return await body(listener, conn)
        finally:
            await listener.stop()
    return asyncio.run(go())


async def connections(conn: psycopg.AsyncConnection, name: str) -> int:
    cur = await conn.execute("select count(*) from pg_stat_activity where application_name = %s", [name])
    row = await cur.fetchone()
    return int(row[0]) if row else 0


def test_subscribers_share_one_connection_and_catch_up_after_a_reconnection(database_url: str) -> None:
    async def body(listener: Listener, conn: psycopg.AsyncConnection) -> tuple[Recorder, Recorder, int]:
        first, second = Recorder(), Recorder()
        listener.subscribe(("unit_a",), on_connect=first.on_connect, on_notify=first.on_notify, name="first")
        listener.subscribe(("unit_a", "unit_b"), on_connect=second.on_connect, on_notify=second.on_notify,
                           name="second")
        await asyncio.wait_for(asyncio.gather(first.connected.wait(), second.connected.wait()), 10)
        count = await connections(conn, listener.name)
        await conn.execute("select pg_notify('unit_a', 'one'), pg_notify('unit_b', 'two')")
        await until(lambda: len(second.payloads) == 2, what="the first notifications")
        first.connected.clear()
        second.connected.clear()
        await conn.execute("select pg_terminate_backend(pid) from pg_stat_activity where application_name = %s",
                           [listener.name])
        await asyncio.wait_for(asyncio.gather(first.connected.wait(), second.connected.wait()), 10)
        await conn.execute("select pg_notify('unit_a', 'three')")
        await until(lambda: len(first.payloads) == 2 and len(second.payloads) == 3,
                    what="the notification after the reconnection")
        return first, second, count

    first, second, count = scenario(database_url, body)  # type: ignore[misc]
    assert count == 1
    assert (first.connects, first.payloads) == (2, ["one", "three"])
    assert (second.connects, second.payloads) == (2, ["one", "two", "three"])


def test_a_slow_subscriber_does_not_hold_up_the_others(database_url: str) -> None:
    async def body(listener: Listener, conn: psycopg.AsyncConnection) -> tuple[list[str], list[str], list[str]]:
        released = asyncio.Event()
        slow_payloads: list[str] = []
        fast = Recorder()

        async def slow(notify: psycopg.Notify) -> None:
            await released.wait()
            slow_payloads.append(notify.payload)

        slow_sub = listener.subscribe(("unit_slow",), on_connect=lambda: None, on_notify=slow, name="slow")
        listener.subscribe(("unit_slow",), on_connect=fast.on_connect, on_notify=fast.on_notify, name="fast")
        await asyncio.wait_for(fast.connected.wait(), 10)
        await conn.execute("select pg_notify('unit_slow', 'one')")
        await conn.execute("select pg_notify('unit_slow', 'two')")
        await until(lambda: fast.payloads == ["one", "two"], what="the fast subscriber served")
        waiting = [n.payload for n in slow_sub.backlog()]
        released.set()
        await until(lambda: len(slow_payloads) == 2, what="the slow subscriber served")
        return fast.payloads, waiting, slow_payloads

    fast, waiting, slow = scenario(database_url, body)  # type: ignore[misc]
    assert fast == slow == ["one", "two"]
    assert waiting == ["two"]  # "one" is being handled


def test_subscribing_and_leaving_while_connected(database_url: str) -> None:
    async def body(listener: Listener, conn: psycopg.AsyncConnection) -> tuple[list[str], list[str]]:
        early, late = Recorder(), Recorder()
        early_sub = listener.subscribe(("unit_early",), on_connect=early.on_connect, on_notify=early.on_notify,
                                       name="early")
        await asyncio.wait_for(early.connected.wait(), 10)
        listener.subscribe(("unit_late",), on_connect=late.on_connect, on_notify=late.on_notify, name="late")
        await asyncio.wait_for(late.connected.wait(), 10)
        await early_sub.close()
        await conn.execute("select pg_notify('unit_early', 'unheard'), pg_notify('unit_late', 'heard')")
        await until(lambda: late.payloads == ["heard"], what="the late subscriber served")
        await conn.execute("select pg_notify('unit_late', 'last')")
        await until(lambda: len(late.payloads) == 2, what="the last notification")
        return early.payloads, late.payloads

    early, late = scenario(database_url, body)  # type: ignore[misc]
    assert early == [] and late == ["heard", "last"]


def test_a_failing_callback_is_followed_by_a_catch_up(database_url: str) -> None:
    async def body(listener: Listener, conn: psycopg.AsyncConnection) -> Recorder:
        recorder = Recorder()

        def on_notify(notify: psycopg.Notify) -> None:
            recorder.on_notify(notify)
            if notify.payload == "bad":
                raise RuntimeError("cannot handle it")

        listener.subscribe(("unit_fail",), on_connect=recorder.on_connect, on_notify=on_notify, name="failing")
        await asyncio.wait_for(recorder.connected.wait(), 10)
        await conn.execute("select pg_notify('unit_fail', 'bad')")
        await until(lambda: recorder.connects == 2, what="the catch-up after the failure")
        await conn.execute("select pg_notify('unit_fail', 'good')")
        await until(lambda: recorder.payloads == ["bad", "good"], what="the next notification")
        return recorder

    recorder = scenario(database_url, body)
    assert isinstance(recorder, Recorder) and recorder.connects == 2
