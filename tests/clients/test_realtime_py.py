"""The Python `realtime` client (supabase-py's) subscribes and receives a change."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
from psycopg import sql
from realtime import AsyncRealtimeClient

from tests.realtime.support import published_table, user_token


def test_python_client_receives_a_change(live_server) -> None:
    published_table(live_server.database_url, "py_notes")
    uid = str(uuid.uuid4())

    async def scenario() -> dict:
        client = AsyncRealtimeClient(f"{live_server.url}/realtime/v1", token=live_server.anon_key)
        await client.connect()
        await client.set_auth(user_token(live_server.settings, uid))
        received: asyncio.Queue = asyncio.Queue()
        subscribed = asyncio.Event()
        channel = client.channel("py-notes")
        channel.on_postgres_changes("INSERT", schema="public", table="py_notes", callback=received.put_nowait)
        await channel.subscribe(lambda state, err: subscribed.set() if state.value == "SUBSCRIBED" else None)
        await asyncio.wait_for(subscribed.wait(), 10)
        with psycopg.connect(live_server.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("insert into public.py_notes (owner, body) values (%s, 'hi'), (gen_random_uuid(), 'hidden')"), [uid])
        payload = await asyncio.wait_for(received.get(), 10)
        await asyncio.sleep(0.3)
        assert received.empty(), "a row the subscriber may not see was delivered"
        await client.close()
        return payload

    payload = asyncio.run(scenario())
    data = payload["data"]
    assert data["type"] == "INSERT"
    assert data["table"] == "py_notes"
    assert data["record"]["body"] == "hi"
    assert data["record"]["owner"] == uid
