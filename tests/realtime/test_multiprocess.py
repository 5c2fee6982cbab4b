"""Two server processes on one database: changes, broadcasts and presence reach a
subscriber whatever process it is connected to, and the change log loses nothing while a
listener reconnects."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator

import httpx
import orjson
import psycopg
import pytest
from psycopg import sql

from server.core.listener import LISTENER_NAME
from tests import harness
from tests.realtime.support import PhoenixClient, published_table, user_token

TABLE = "mp_notes"


@pytest.fixture(scope="module")
def servers(database_url: str) -> Iterator[tuple[harness.LiveServer, harness.LiveServer]]:
    published_table(database_url, TABLE)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create policy ins on {} for insert to authenticated with check (owner = auth.uid())")
                     .format(sql.Identifier("public", TABLE)))
    first = harness.start_server(database_url, args=["--no-migrate"])
    second = harness.start_server(database_url, args=["--no-migrate"])
    yield first, second
    first.stop()
    second.stop()


def test_change_written_through_the_second_reaches_the_first(servers) -> None:
    first, second = servers
    uid = str(uuid.uuid4())
    token = user_token(first.settings, uid)

    async def scenario() -> list:
        client = await PhoenixClient.connect(first.url, first.anon_key)
        reply = await client.join("realtime:mp", {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": TABLE}]}, token)
        assert reply[4]["status"] == "ok"
        async with httpx.AsyncClient() as http:
            res = await http.post(f"{second.url}/rest/v1/{TABLE}", json={"owner": uid, "body": "via second"},
                                  headers={"apikey": second.anon_key, "Authorization": f"Bearer {token}"})
            assert res.status_code == 201, res.text
        frame = await client.receive("postgres_changes")
        await client.close()
        return frame

    frame = asyncio.run(scenario())
    assert frame[4]["data"]["record"]["body"] == "via second"


def test_broadcast_and_presence_sent_on_the_second_reach_the_first(servers) -> None:
    first, second = servers

    async def scenario() -> tuple[list, list]:
        listener = await PhoenixClient.connect(first.url, first.anon_key)
        await listener.join("realtime:lobby", {"presence": {"key": "watcher", "enabled": True}})
        await listener.receive("presence_state")
        async with httpx.AsyncClient() as http:
            res = await http.post(f"{second.url}/realtime/v1/api/broadcast", headers={"apikey": second.anon_key},
                                  json={"messages": [{"topic": "lobby", "event": "hello", "payload": {"from": "second"}}]})
            assert res.status_code == 202
        broadcast = await listener.receive("broadcast")
        other = await PhoenixClient.connect(second.url, second.anon_key)
        await other.join("realtime:lobby", {"presence": {"key": "visitor", "enabled": True}})
        await other.push("realtime:lobby", "presence", {"type": "presence", "event": "track", "payload": {"name": "V"}})
        diff = await listener.receive("presence_diff")
        await other.close()
        await listener.close()
        return broadcast, diff

    broadcast, diff = asyncio.run(scenario())
    assert b'{"from":"second"}' in broadcast[4]
    assert diff[4]["joins"]["visitor"]["metas"][0]["name"] == "V"


def test_changes_committed_while_the_listener_reconnects_arrive_once(servers) -> None:
    first, _ = servers
    uid = str(uuid.uuid4())

    async def scenario() -> list[str]:
        client = await PhoenixClient.connect(first.url, first.anon_key)
        await client.join("realtime:gap", {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": TABLE}]},
                          user_token(first.settings, uid))
        with psycopg.connect(first.database_url, autocommit=True) as conn:
            conn.execute("select pg_terminate_backend(pid) from pg_stat_activity where application_name = %s",
                         [LISTENER_NAME])
            for i in range(5):
                conn.execute(sql.SQL("insert into {} (owner, body) values (%s, %s)").format(sql.Identifier("public", TABLE)),
                             [uid, f"gap {i}"])
        bodies = [(await client.receive("postgres_changes"))[4]["data"]["record"]["body"] for _ in range(5)]
        with pytest.raises(TimeoutError):
            await client.receive("postgres_changes", timeout=1.5)
        await client.close()
        return bodies

    assert asyncio.run(scenario()) == [f"gap {i}" for i in range(5)]


def test_broadcasts_sent_while_a_listener_is_down_arrive_once_it_is_back(servers) -> None:
    """The listener of the first server is cut and cannot reconnect (the database refuses new
    connections) while the second publishes: the first reports realtime down, then, once it
    listens again and reports healthy, delivers what was sent meanwhile, and what follows."""
    first, second = servers

    def health() -> httpx.Response:
        return httpx.get(f"{first.url}/health", timeout=5)

    async def scenario() -> tuple[list[dict], httpx.Response]:
        client = await PhoenixClient.connect(first.url, first.anon_key)
        await client.join("realtime:outage", {})
        name = psycopg.conninfo.conninfo_to_dict(first.database_url)["dbname"]
        dbname = sql.Identifier(str(name))
        with psycopg.connect(harness.with_database(first.database_url, "postgres"), autocommit=True) as conn:
            conn.execute(sql.SQL("alter database {} allow_connections false").format(dbname))
            try:
                conn.execute("select pg_terminate_backend(pid) from pg_stat_activity"
                             " where application_name = %s and datname = %s", [LISTENER_NAME, name])
                while health().status_code == 200:
                    await asyncio.sleep(0.05)
                down = health()
                async with httpx.AsyncClient() as http:
                    res = await http.post(f"{second.url}/realtime/v1/api/broadcast", headers={"apikey": second.anon_key},
                                          json={"messages": [{"topic": "outage", "event": "e", "payload": {"n": 1}}]})
                    assert res.status_code == 202
            finally:
                conn.execute(sql.SQL("alter database {} allow_connections true").format(dbname))
        while health().status_code != 200:
            await asyncio.sleep(0.05)
        async with httpx.AsyncClient() as http:
            res = await http.post(f"{second.url}/realtime/v1/api/broadcast", headers={"apikey": second.anon_key},
                                  json={"messages": [{"topic": "outage", "event": "e", "payload": {"n": 2}}]})
            assert res.status_code == 202
        frames = [await client.receive("broadcast") for _ in range(2)]
        await client.close()
        return [orjson.loads(f[4][f[4].index(b"{"):]) for f in frames], down

    payloads, down = asyncio.run(scenario())
    assert payloads == [{"n": 1}, {"n": 2}]
    assert down.status_code == 503
    assert down.json()["services"]["realtime"] == "down (not listening yet)"
