"""server.core.health: the watchdog tells a database that is down from a connection of its own
that was ended."""

from __future__ import annotations

import asyncio

import psycopg

from server.core.health import PING_INTERVAL, DatabaseHealth


async def watchdog_pid(database_url: str) -> int | None:
    async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
        cur = await admin.execute("select pid from pg_stat_activity where application_name = 'supalite watchdog'"
                                  " and datname = current_database()")
        row = await cur.fetchone()
        return None if row is None else int(row[0])


def test_an_ended_watchdog_connection_is_not_an_outage(database_url: str) -> None:
    """A database dropped and created again (`supalite db reset`), an admin's
    pg_terminate_backend or a pooler restart end the watchdog's connection while the
    database answers: it reconnects without answering 503 in between, and the pools drop
    their ended connections (the recovery hooks run)."""

    async def go() -> None:
        health = DatabaseHealth(database_url)
        recovered: list[int] = []

        async def hook() -> None:
            recovered.append(1)

        health.on_recover.append(hook)
        await health.start()
        try:
            first = await until_value(lambda: watchdog_pid(database_url))
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
                await admin.execute("select pg_terminate_backend(%s)", [first])
            # Watched until the watchdog has its new connection and the hooks have run (the ping
            # that found the old one gone is over by then), not for a fixed time.
            seen_down = False

            async def replaced() -> int | None:
                nonlocal seen_down
                seen_down = seen_down or not health.up
                pid = await watchdog_pid(database_url)
                return pid if pid not in (None, first) and recovered else None

            await until_value(replaced, deadline=5 * PING_INTERVAL)
            assert not seen_down, "answered 503 for a connection of its own"
            assert recovered == [1]
        finally:
            await health.stop()

    asyncio.run(go())


async def until_value(get, deadline: float = 5.0):  # type: ignore[no-untyped-def]
    """`get()`'s first value other than None, polled until `deadline` seconds have passed."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    while loop.time() < end:
        value = await get()
        if value is not None:
            return value
        await asyncio.sleep(0.05)
    raise AssertionError("no watchdog connection")
