"""Realtime checks RLS as the authenticator, as REST and storage do: private-channel reads and
writes (socket and HTTP broadcast) and postgres_changes visibility are evaluated in the
authenticator's session with the caller's role, so a policy sees `session_user =
'authenticator'`, and a token naming a role the authenticator cannot become is refused."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator

import httpx
import psycopg
import pytest
from psycopg import sql

from server.core.jwt import keys_from_settings
from tests import harness
from tests.realtime.support import PhoenixClient, published_table, user_token

AS_AUTHENTICATOR = "session_user = 'authenticator'"


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        # private channel `auth-only`: readable and writable only from the authenticator's session
        conn.execute(f"create policy rt_auth_read on realtime.messages for select to authenticated"
                     f" using (realtime.topic() = 'auth-only' and {AS_AUTHENTICATOR})")
        conn.execute(f"create policy rt_auth_write on realtime.messages for insert to authenticated"
                     f" with check (realtime.topic() = 'auth-only' and {AS_AUTHENTICATOR})")
        # a table whose rows are seen by their owner, from the authenticator's session only
        table = sql.Identifier("public", "auth_notes")
        conn.execute(sql.SQL("create table {} (id bigserial primary key, owner uuid, body text)").format(table))
        conn.execute(sql.SQL("alter table {} enable row level security").format(table))
        conn.execute(sql.SQL("grant select on {} to authenticated").format(table))
        conn.execute(sql.SQL(f"create policy own on {{}} for select using (owner = auth.uid() and {AS_AUTHENTICATOR})")
                     .format(table))
        conn.execute(sql.SQL("alter publication supabase_realtime add table {}").format(table))
    published_table(database_url, "auth_markers")
    live = harness.start_server(database_url, args=["--no-migrate"])
    yield live
    live.stop()


def superuser_token(server: harness.LiveServer) -> str:
    """A validly signed token naming a role REST refuses (the authenticator cannot become it)."""
    return keys_from_settings(server.settings).sign({"sub": str(uuid.uuid4()), "role": "postgres",
                                                     "exp": int(time.time()) + 3600})


def test_a_private_channel_is_read_and_written_as_the_authenticator(server: harness.LiveServer) -> None:
    async def scenario() -> None:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        token = user_token(server.settings, str(uuid.uuid4()))
        reply = await client.join("realtime:auth-only", {"private": True, "broadcast": {"self": True, "ack": True}}, token)
        assert reply[4]["status"] == "ok", reply
        ref = await client.push("realtime:auth-only", "broadcast", {"type": "broadcast", "event": "e", "payload": {"n": 1}})
        frames = {}  # the ack and the message itself, in whichever order they come
        while len(frames) < 2:
            frame = await client.receive_any()
            if frame[3] in ("phx_reply", "broadcast"):
                frames[frame[3]] = frame
        assert frames["phx_reply"][1] == ref and frames["phx_reply"][4]["status"] == "ok", frames
        assert frames["broadcast"][4].endswith(b'{"n":1}')  # a binary user broadcast: the payload last
        await client.close()

    asyncio.run(scenario())


def test_the_http_broadcast_to_a_private_channel_is_checked_as_the_authenticator(server: harness.LiveServer) -> None:
    async def scenario() -> None:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        token = user_token(server.settings, str(uuid.uuid4()))
        reply = await client.join("realtime:auth-only", {"private": True}, token)
        assert reply[4]["status"] == "ok", reply
        async with httpx.AsyncClient() as http:
            sent = await http.post(f"{server.url}/realtime/v1/api/broadcast",
                                   headers={"apikey": server.anon_key, "authorization": f"Bearer {token}"},
                                   json={"messages": [{"topic": "auth-only", "event": "e", "payload": {"n": 2},
                                                       "private": True}]})
        assert sent.status_code == 202
        got = await client.receive("broadcast")
        assert got[4].endswith(b'{"n":2}')
        await client.close()

    asyncio.run(scenario())


def test_a_token_naming_a_role_the_authenticator_cannot_take_is_refused_a_private_channel(
        server: harness.LiveServer) -> None:
    async def scenario() -> list:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        reply = await client.join("realtime:auth-only", {"private": True}, superuser_token(server))
        await client.close()
        return reply

    reply = asyncio.run(scenario())
    assert reply[4]["status"] == "error"
    assert reply[4]["response"]["reason"].startswith("Unauthorized: You do not have permissions to read"), reply


def test_postgres_changes_are_checked_as_the_authenticator_and_never_as_another_role(
        server: harness.LiveServer) -> None:
    """The owner sees their row (the policy requires the authenticator's session); a token
    claiming `postgres` on the same socket sees nothing: the marker, committed after the row
    and readable by it, is the first change this socket receives."""
    uid = str(uuid.uuid4())

    async def scenario() -> list[tuple[str, str]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        changes = {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": "auth_notes"}]}
        for topic, token in (("realtime:as-postgres", superuser_token(server)),
                             ("realtime:as-owner", user_token(server.settings, uid))):
            reply = await client.join(topic, changes, token)
            assert reply[4]["status"] == "ok", reply
            await client.receive("system")
        reply = await client.join("realtime:markers", {"postgres_changes": [
            {"event": "INSERT", "schema": "public", "table": "auth_markers"}]}, user_token(server.settings, uid))
        assert reply[4]["status"] == "ok", reply
        await client.receive("system")
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute("insert into public.auth_notes (owner, body) values (%s, 'mine')", [uid])
            conn.execute("insert into public.auth_markers (owner, body) values (%s, 'marker')", [uid])
        got = []
        for _ in range(2):
            frame = await client.receive("postgres_changes")
            got.append((frame[2], frame[4]["data"]["record"]["body"]))
        await client.close()
        return got

    assert asyncio.run(scenario()) == [("realtime:as-owner", "mine"), ("realtime:markers", "marker")]
