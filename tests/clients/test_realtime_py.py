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


def test_python_client_private_channel_replays_and_receives_database_broadcasts(live_server) -> None:
    uid = str(uuid.uuid4())
    topic = f"py-db-{uuid.uuid4().hex[:8]}"
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create policy {} on realtime.messages for select to authenticated"
                             " using (extension = 'broadcast' and realtime.topic() = {} and auth.uid() = {}::uuid)")
                     .format(sql.Identifier(f"py_read_{topic}"), sql.Literal(topic), sql.Literal(uid)))
        for n in (1, 2, 3):  # one transaction each: stored in order
            conn.execute("select realtime.send(jsonb_build_object('n', %s::int), 'note', %s)", [n, topic])
    since = 0  # every stored message of the topic, the latest `limit` of them

    async def scenario() -> list[dict]:
        client = AsyncRealtimeClient(f"{live_server.url}/realtime/v1", token=live_server.anon_key)
        await client.connect()
        await client.set_auth(user_token(live_server.settings, uid))
        received: asyncio.Queue = asyncio.Queue()
        subscribed = asyncio.Event()
        channel = client.channel(topic, {"config": {"private": True, "broadcast": {"replay": {"since": since, "limit": 2}}}})
        channel.on_broadcast("note", received.put_nowait)
        await channel.subscribe(lambda state, err: subscribed.set() if state.value == "SUBSCRIBED" else None)
        await asyncio.wait_for(subscribed.wait(), 10)
        got = [await asyncio.wait_for(received.get(), 10) for _ in range(2)]
        with psycopg.connect(live_server.database_url, autocommit=True) as conn:
            conn.execute("select realtime.send('{\"n\": 4}', 'note', %s)", [topic])
        got.append(await asyncio.wait_for(received.get(), 10))
        await client.close()
        return got

    got = asyncio.run(scenario())
    assert [m["payload"]["n"] for m in got] == [2, 3, 4]
    assert [m["meta"].get("replayed") for m in got] == [True, True, None]
    assert all(m["event"] == "note" and m["meta"]["id"] == m["payload"]["id"] for m in got)


def test_python_client_filters_and_selects_columns(live_server) -> None:
    """realtime-py's `filter` and `select`: an `in` and an `ilike` filter read as the column's
    types, the payload limited to the selected columns and the key. A sentinel binding on the
    same channel (`body=eq.END`, inserted last) says when everything before it has arrived."""
    table = "py_filtered"
    with psycopg.connect(live_server.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create table {} (id bigserial primary key, owner uuid, n int, body text)")
                     .format(sql.Identifier("public", table)))
        conn.execute(sql.SQL("alter publication supabase_realtime add table {}").format(sql.Identifier("public", table)))
    uid = str(uuid.uuid4())

    async def scenario() -> tuple[list[dict], list[dict]]:
        client = AsyncRealtimeClient(f"{live_server.url}/realtime/v1", token=live_server.anon_key)
        await client.connect()
        await client.set_auth(user_token(live_server.settings, uid))
        in_rows: list[dict] = []
        ilike_rows: list[dict] = []
        done = asyncio.Event()
        subscribed = asyncio.Event()
        channel = client.channel("py-filtered")
        channel.on_postgres_changes("INSERT", schema="public", table=table, filter="n=in.(1,3)", select=["n"],
                                    callback=lambda p: in_rows.append(p["data"]["record"]))
        channel.on_postgres_changes("INSERT", schema="public", table=table, filter="body=ilike.HELLO%",
                                    callback=lambda p: ilike_rows.append(p["data"]["record"]))
        channel.on_postgres_changes("INSERT", schema="public", table=table, filter="body=eq.END",
                                    callback=lambda p: done.set())
        await channel.subscribe(lambda state, err: subscribed.set() if state.value == "SUBSCRIBED" else None)
        await asyncio.wait_for(subscribed.wait(), 10)
        with psycopg.connect(live_server.database_url, autocommit=True) as conn:
            for n, body in ((1, "hello world"), (2, "Hello again"), (3, "bye"), (None, "END")):
                conn.execute(sql.SQL("insert into {} (owner, n, body) values (%s, %s, %s)")
                             .format(sql.Identifier("public", table)), [uid, n, body])
        await asyncio.wait_for(done.wait(), 10)
        await client.close()
        return in_rows, ilike_rows

    in_rows, ilike_rows = asyncio.run(scenario())
    assert [sorted(r) for r in in_rows] == [["id", "n"], ["id", "n"]]
    assert [r["n"] for r in in_rows] == [1, 3]
    assert [r["body"] for r in ilike_rows] == ["hello world", "Hello again"]
