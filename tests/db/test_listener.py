"""server/db/listener.py against a real PostgreSQL: catch-up on connect, delivery, reconnect."""

from __future__ import annotations

import asyncio

import psycopg

from server.db.listener import cancel_all, listen_forever
from tests.harness import until


def test_listener_reconnects_and_catches_up(database_url: str) -> None:
    async def scenario() -> tuple[int, list[str]]:
        connects = 0
        payloads: list[str] = []
        connected = asyncio.Event()

        def on_connect() -> None:
            nonlocal connects
            connects += 1
            connected.set()

        task = asyncio.create_task(listen_forever(database_url, ("unit_listener",), name="unit listener",
                                                  on_connect=on_connect, on_notify=lambda n: payloads.append(n.payload)))
        await asyncio.wait_for(connected.wait(), 10)
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as conn:
            await conn.execute("select pg_notify('unit_listener', 'one')")
            await until(lambda: len(payloads) == 1, what="the first notification")
            connected.clear()
            await conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                               " where application_name = 'unit listener'")
            await asyncio.wait_for(connected.wait(), 10)
            await conn.execute("select pg_notify('unit_listener', 'two')")
            await until(lambda: len(payloads) == 2, what="the notification after the reconnect")
        await cancel_all([task])
        return connects, payloads

    connects, payloads = asyncio.run(scenario())
    assert connects == 2
    assert payloads == ["one", "two"]
