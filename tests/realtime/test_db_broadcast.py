"""Broadcast from the database (realtime.send, realtime.broadcast_changes in a trigger) and
broadcast replay, against two server processes on one database: what reaches whom, under
the realtime.messages policies, in commit order, with Realtime's payload shape and errors."""

from __future__ import annotations

import asyncio
import struct
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import orjson
import psycopg
import pytest

from tests import harness
from tests.realtime.support import PhoenixClient, user_token

TABLE = "dbb_notes"

SETUP = f"""
create table public.{TABLE} (id bigserial primary key, room text not null, body text);
create table public.dbb_members (topic text not null, user_id uuid not null);
grant select on public.dbb_members to authenticated;
create function public.dbb_notes_broadcast() returns trigger language plpgsql security definer as $$
begin
  perform realtime.broadcast_changes('room:' || coalesce(new.room, old.room), tg_op, tg_op, tg_table_name,
                                     tg_table_schema, new, old);
  return null;
end $$;
create trigger dbb_notes_broadcast after insert or update or delete on public.{TABLE}
  for each row execute function public.dbb_notes_broadcast();
create function public.dbb_statement_broadcast() returns trigger language plpgsql security definer as $$
begin
  perform realtime.broadcast_changes('room:x', tg_op, tg_op, tg_table_name, tg_table_schema, new, old, tg_level);
  return null;
end $$;
create policy dbb_members_read on realtime.messages for select to authenticated
  using (extension = 'broadcast' and exists (
    select 1 from public.dbb_members m where m.topic = realtime.topic() and m.user_id = auth.uid()));
create policy dbb_presence_only on realtime.messages for select to authenticated
  using (extension = 'presence' and realtime.topic() = 'presence-only');
"""


@pytest.fixture(scope="module")
def servers(database_url: str) -> Iterator[tuple[harness.LiveServer, harness.LiveServer]]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(SETUP)
    first = harness.start_server(database_url, args=["--no-migrate"])
    second = harness.start_server(database_url, args=["--no-migrate"])
    yield first, second
    first.stop()
    second.stop()


def member(database_url: str, topic: str) -> str:
    uid = str(uuid.uuid4())
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("insert into public.dbb_members (topic, user_id) values (%s, %s)", [topic, uid])
    return uid


def sql(database_url: str, statement: str, params: list[Any] | None = None) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(statement, params)


def decode_broadcast(frame: list[Any]) -> dict[str, Any]:
    """A pushed broadcast as realtime-js reads it: {type, event, payload, meta?}."""
    raw = frame[4]
    if not isinstance(raw, bytes):
        return raw
    kind, topic_size, event_size, meta_size, encoding = struct.unpack_from("5B", raw)
    assert kind == 4
    offset = 5 + topic_size
    event = raw[offset:offset + event_size].decode()
    offset += event_size
    meta = raw[offset:offset + meta_size]
    offset += meta_size
    data = raw[offset:]
    message: dict[str, Any] = {"type": "broadcast", "event": event,
                               "payload": orjson.loads(data) if encoding == 1 else data}
    if meta:
        message["meta"] = orjson.loads(meta)
    return message


async def joined(server: harness.LiveServer, topic: str, config: dict[str, Any],
                 token: str | None = None) -> tuple[PhoenixClient, list[Any]]:
    client = await PhoenixClient.connect(server.url, server.anon_key)
    reply = await client.join(f"realtime:{topic}", config, token)
    return client, reply


async def next_broadcast(client: PhoenixClient, timeout: float = 10.0) -> dict[str, Any]:
    return decode_broadcast(await client.receive("broadcast", timeout))


def test_trigger_write_through_the_second_reaches_a_private_subscriber_on_the_first(servers) -> None:
    first, second = servers
    uid = member(first.database_url, "room:a")
    token = user_token(first.settings, uid)

    async def scenario() -> list[dict[str, Any]]:
        client, reply = await joined(first, "room:a", {"private": True}, token)
        assert reply[4]["status"] == "ok", reply
        async with httpx.AsyncClient() as http:
            headers = {"apikey": second.service_key, "Authorization": f"Bearer {second.service_key}",
                       "Prefer": "return=representation"}
            res = await http.post(f"{second.url}/rest/v1/{TABLE}", json={"room": "a", "body": "hello"}, headers=headers)
            assert res.status_code == 201, res.text
            row_id = res.json()[0]["id"]
            res = await http.patch(f"{second.url}/rest/v1/{TABLE}?id=eq.{row_id}", json={"body": "edited"}, headers=headers)
            assert res.status_code == 200, res.text
            res = await http.delete(f"{second.url}/rest/v1/{TABLE}?id=eq.{row_id}", headers=headers)
            assert res.status_code == 200, res.text
        messages = [await next_broadcast(client) for _ in range(3)]
        await client.close()
        return messages

    insert, update, delete = asyncio.run(scenario())
    for message, operation in ((insert, "INSERT"), (update, "UPDATE"), (delete, "DELETE")):
        assert message["event"] == operation
        assert set(message["payload"]) == {"old_record", "record", "operation", "table", "schema", "id"}
        assert message["payload"]["operation"] == operation
        assert (message["payload"]["schema"], message["payload"]["table"]) == ("public", TABLE)
        assert message["meta"] == {"id": message["payload"]["id"]}
        uuid.UUID(message["meta"]["id"])
    row = insert["payload"]["record"]
    assert row["body"] == "hello" and row["room"] == "a"
    assert insert["payload"]["old_record"] is None
    assert update["payload"]["old_record"] == row and update["payload"]["record"] == {**row, "body": "edited"}
    assert delete["payload"]["record"] is None and delete["payload"]["old_record"]["body"] == "edited"


def test_the_policies_decide_who_joins_and_receives(servers) -> None:
    first, second = servers
    allowed = user_token(first.settings, member(first.database_url, "room:b"))
    stranger = user_token(first.settings, str(uuid.uuid4()))

    async def scenario() -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
        refused_client, refused = await joined(first, "room:b", {"private": True}, stranger)
        await refused_client.close()
        client, reply = await joined(first, "room:b", {"private": True}, allowed)
        assert reply[4]["status"] == "ok", reply
        public_client, reply = await joined(second, "room:b", {}, allowed)
        assert reply[4]["status"] == "ok", reply
        # private (the default) reaches the private channel only; private=false the public one only
        sql(first.database_url, """select realtime.send('{"n": 1}', 'private-one', 'room:b')""")
        sql(first.database_url, """select realtime.send('{"n": 2}', 'public-one', 'room:b', false)""")
        private = await next_broadcast(client)
        public = await next_broadcast(public_client)
        for c in (client, public_client):
            with pytest.raises(TimeoutError):
                await c.receive("broadcast", timeout=1.0)
            await c.close()
        return refused, private, public

    refused, private, public = asyncio.run(scenario())
    assert refused[4] == {"status": "error", "response": {
        "reason": "Unauthorized: You do not have permissions to read from this Channel topic: room:b"}}
    assert private["event"] == "private-one" and private["payload"]["n"] == 1
    assert public["event"] == "public-one" and public["payload"]["n"] == 2
    assert public["payload"]["id"] == public["meta"]["id"]


def test_a_send_is_delivered_at_commit_in_commit_order_and_never_when_rolled_back(servers) -> None:
    first, _ = servers

    async def scenario() -> list[str]:
        client, reply = await joined(first, "commits", {})
        assert reply[4]["status"] == "ok"
        with psycopg.connect(first.database_url) as early, psycopg.connect(first.database_url) as doomed:
            early.execute("""select realtime.send('{}', 'sent first, committed last', 'commits', false)""")
            doomed.execute("""select realtime.send('{}', 'rolled back', 'commits', false)""")
            sql(first.database_url, """select realtime.send('{}', 'committed first', 'commits', false)""")
            got = [(await next_broadcast(client))["event"]]
            doomed.rollback()
            early.commit()
        sql(first.database_url, """select realtime.send('{}', 'marker', 'commits', false)""")
        while got[-1] != "marker":
            got.append((await next_broadcast(client))["event"])
        await client.close()
        return got

    assert asyncio.run(scenario()) == ["committed first", "sent first, committed last", "marker"]


def test_send_never_fails_the_callers_transaction(servers) -> None:
    first, _ = servers
    warnings: list[str] = []
    with psycopg.connect(first.database_url) as conn:
        conn.add_notice_handler(lambda d: warnings.append(f"{d.severity_nonlocalized}: {d.message_primary}"))
        conn.execute("set local role authenticated")
        # No INSERT policy lets this caller write realtime.messages: a warning, not an error.
        conn.execute("""select realtime.send('{"x": 1}', 'e', 'room:b')""")
        conn.execute("select 1")  # the transaction goes on
        conn.execute("reset role")
        conn.execute("create temp table t (x int)")
        conn.execute("create trigger t_statement after insert on t for each statement"
                     " execute function public.dbb_statement_broadcast()")
        with pytest.raises(psycopg.errors.RaiseException) as info:
            conn.execute("insert into t values (1)")
        conn.rollback()
    assert warnings == ["WARNING: WarnSendingBroadcastMessage: new row violates row-level security policy"
                        ' for table "messages"']
    assert str(info.value).startswith(
        "Failed to process the row: function can only be triggered for each row, not for each statement")


def test_binary_send_and_a_payload_with_its_own_id(servers) -> None:
    first, _ = servers

    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        client, _ = await joined(first, "bin", {})
        sql(first.database_url, r"""select realtime.send_binary('\x00ff10'::bytea, 'raw', 'bin', false)""")
        sql(first.database_url, """select realtime.send('{"id": "mine"}', 'own', 'bin', false)""")
        raw, own = await next_broadcast(client), await next_broadcast(client)
        await client.close()
        return raw, own

    raw, own = asyncio.run(scenario())
    assert raw["event"] == "raw" and raw["payload"] == b"\x00\xff\x10"
    assert own["payload"] == {"id": "mine"}
    assert own["meta"]["id"] != "mine"  # the row's id; the payload keeps the caller's


def _send_private(database_url: str, topic: str, events: list[str]) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        for event in events:  # one transaction each: distinct inserted_at
            conn.execute("select realtime.send(%s::jsonb, %s, %s)", [orjson.dumps({"e": event}).decode(), event, topic])


def test_replay_of_a_private_channel(servers) -> None:
    first, second = servers
    topic = "room:replay"
    token = user_token(first.settings, member(first.database_url, topic))
    before = int(time.time() * 1000) - 1000
    _send_private(first.database_url, topic, [f"m{i}" for i in range(30)])

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
        two, reply = await joined(second, topic, {"private": True, "broadcast": {"replay": {"since": before, "limit": 2}}}, token)
        assert reply[4]["status"] == "ok", reply
        last_two = [await next_broadcast(two) for _ in range(2)]
        many, _ = await joined(first, topic, {"private": True, "broadcast": {"replay": {"since": before, "limit": 1000}}}, token)
        capped = [await next_broadcast(many) for _ in range(25)]
        future = int(time.time() * 1000) + 120_000
        none, _ = await joined(first, topic, {"private": True, "broadcast": {"replay": {"since": future}}}, token)
        sql(first.database_url, """select realtime.send('{"live": true}', 'live', %s)""", [topic])
        live = [await next_broadcast(none)]
        defaults, _ = await joined(first, topic, {"private": True, "broadcast": {"replay": {}}}, token)
        default_ten = [await next_broadcast(defaults) for _ in range(10)]
        after = await next_broadcast(two)
        for c in (two, many, none, defaults):
            await c.close()
        return last_two, capped, live + default_ten, after

    last_two, capped, live_then_defaults, after = asyncio.run(scenario())
    assert [m["event"] for m in last_two] == ["m28", "m29"]
    assert all(m["meta"]["replayed"] is True and m["meta"]["id"] == m["payload"]["id"] for m in last_two)
    assert [m["event"] for m in capped] == [f"m{i}" for i in range(5, 30)]
    live, *default_ten = live_then_defaults
    assert live["event"] == "live" and "replayed" not in live["meta"]
    assert [m["event"] for m in default_ten] == [*(f"m{i}" for i in range(21, 30)), "live"]
    assert after["event"] == "live"


@pytest.mark.parametrize(("config", "token_for", "reason"), [
    ({"broadcast": {"replay": {"since": 0}}}, "member",
     "UnableToReplayMessages: Replay is not allowed for public channels"),
    ({"private": True, "broadcast": {"replay": {"since": "yesterday"}}}, "member",
     "UnableToReplayMessages: Replay params are not valid"),
    ({"private": True, "broadcast": {"replay": {"limit": 1.5}}}, "member",
     "UnableToReplayMessages: Replay params are not valid"),
    ({"private": True, "broadcast": {"replay": {"since": 10**16}}}, "member",
     "UnableToReplayMessages: Replay params are not valid"),
    ({"private": True, "broadcast": {"replay": {"since": 0}}}, "presence-only",
     "Unauthorized: You do not have permissions to read from this Channel topic: presence-only"),
])
def test_replay_refusals(servers, config: dict[str, Any], token_for: str, reason: str) -> None:
    first, _ = servers
    if token_for == "presence-only":  # may read the topic's presence, not its broadcasts
        topic, token = "presence-only", user_token(first.settings, str(uuid.uuid4()))
    else:
        topic = "room:refusals"
        token = user_token(first.settings, member(first.database_url, topic))

    async def scenario() -> list[Any]:
        client, reply = await joined(first, topic, config, token)
        await client.close()
        return reply

    assert asyncio.run(scenario())[4] == {"status": "error", "response": {"reason": reason}}


def test_replay_ignores_what_is_not_a_map(servers) -> None:
    first, _ = servers
    topic = "room:not-a-map"
    token = user_token(first.settings, member(first.database_url, topic))
    _send_private(first.database_url, topic, ["old"])

    async def scenario() -> list[Any]:
        client, reply = await joined(first, topic, {"private": True, "broadcast": {"replay": True}}, token)
        with pytest.raises(TimeoutError):
            await client.receive("broadcast", timeout=1.0)
        await client.close()
        return reply

    assert asyncio.run(scenario())[4]["status"] == "ok"


def test_a_broadcast_that_cannot_be_published_is_not_accepted(servers) -> None:
    first, _ = servers
    body = {"messages": [{"topic": "nowhere", "event": "e", "payload": {}}]}
    sql(first.database_url, "alter table realtime.bus rename to bus_away")
    try:
        res = httpx.post(f"{first.url}/realtime/v1/api/broadcast", json=body, headers={"apikey": first.anon_key})
        single = httpx.post(f"{first.url}/realtime/v1/api/broadcast/nowhere/events/e", json={},
                            headers={"apikey": first.anon_key})
    finally:
        sql(first.database_url, "alter table realtime.bus_away rename to bus")
    assert (res.status_code, res.json()) == (503, {"message": "The database is unavailable; retry in a moment"})
    assert single.status_code == 503
    assert httpx.post(f"{first.url}/realtime/v1/api/broadcast", json=body,
                      headers={"apikey": first.anon_key}).status_code == 202


def test_messages_table_is_upstreams(servers) -> None:
    first, _ = servers
    with psycopg.connect(first.database_url) as conn:
        columns = [r[0] for r in conn.execute(
            "select attname from pg_attribute where attrelid = 'realtime.messages'::regclass and attnum > 0"
            " and not attisdropped order by attnum")]
        kind = conn.execute("select relkind from pg_class where oid = 'realtime.messages'::regclass").fetchone()
        key = conn.execute("select pg_get_partkeydef('realtime.messages'::regclass)").fetchone()
        today = conn.execute("select to_char(current_date, 'YYYY_MM_DD')").fetchone()
        parts = {r[0] for r in conn.execute(
            "select c.relname from pg_inherits i join pg_class c on c.oid = i.inhrelid"
            " where i.inhparent = 'realtime.messages'::regclass")}
    assert columns == ["topic", "extension", "payload", "event", "private", "updated_at", "inserted_at", "id",
                       "binary_payload", "skip_broadcast"]
    assert kind == ("p",) and key == ("RANGE (inserted_at)",)
    assert {"messages_default", f"messages_{today[0]}"} <= parts
