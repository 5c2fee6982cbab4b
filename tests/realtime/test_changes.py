"""postgres_changes against concurrent writers: every change a subscriber may see arrives
exactly once, in commit order, whatever the order the transactions started in and whatever
else stays open; RLS is checked on the row as it was written."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests import harness
from tests.realtime.support import PhoenixClient, published_table, user_token

TABLE = "ch_notes"
INSERT = sql.SQL("insert into {} (owner, body) values (%s, %s) returning id").format(sql.Identifier("public", TABLE))


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    published_table(database_url, TABLE)
    live = harness.start_server(database_url, args=["--no-migrate"])
    yield live
    live.stop()


async def subscribe(server: harness.LiveServer, uid: str, topic: str) -> PhoenixClient:
    client = await PhoenixClient.connect(server.url, server.anon_key)
    reply = await client.join(f"realtime:{topic}", {"postgres_changes": [{"event": "*", "schema": "public", "table": TABLE}]},
                              user_token(server.settings, uid))
    assert reply[4]["status"] == "ok", reply
    await client.receive("system")  # "Subscribed to PostgreSQL": the subscription is in place
    return client


async def receive_all(client: PhoenixClient, count: int) -> list[dict[str, Any]]:
    """`count` changes, then proof that nothing else follows."""
    got = [(await client.receive("postgres_changes"))[4]["data"] for _ in range(count)]
    with pytest.raises(TimeoutError):
        await client.receive("postgres_changes", timeout=1.5)
    return got


def test_transactions_arrive_in_commit_order_not_start_order(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())
    commit_order = [3, 0, 4, 1, 2]

    async def scenario() -> list[dict[str, Any]]:
        client = await subscribe(server, uid, "order")
        conns = [psycopg.connect(server.database_url) for _ in commit_order]
        try:
            for i, conn in enumerate(conns):  # started (and written) in order 0..4
                conn.execute(INSERT, [uid, f"tx {i}"])
            for i in commit_order:
                conns[i].commit()
        finally:
            for conn in conns:
                conn.close()
        got = await receive_all(client, len(commit_order))
        await client.close()
        return got

    got = asyncio.run(scenario())
    assert [d["record"]["body"] for d in got] == [f"tx {i}" for i in commit_order]


def test_an_open_transaction_holds_nothing_back(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())

    async def scenario() -> list[dict[str, Any]]:
        client = await subscribe(server, uid, "open")
        with psycopg.connect(server.database_url) as idle:
            idle.execute("select pg_current_xact_id()")  # an open transaction with an id, left open
            with psycopg.connect(server.database_url, autocommit=True) as conn:
                row = conn.execute(INSERT, [uid, "sent"]).fetchone()
                assert row is not None
                conn.execute(sql.SQL("update {} set body = 'read' where id = %s").format(sql.Identifier("public", TABLE)),
                             [row[0]])
            got = await receive_all(client, 2)  # while `idle` is still open
            idle.rollback()
        await client.close()
        return got

    insert, update = asyncio.run(scenario())
    assert (insert["type"], insert["record"]["body"]) == ("INSERT", "sent")
    assert (update["type"], update["record"]["body"]) == ("UPDATE", "read")
    assert update["old_record"] == {"id": update["record"]["id"]}  # REPLICA IDENTITY DEFAULT: the primary key


def test_insert_update_delete_in_one_transaction_give_three_events_to_the_owner_only(server: harness.LiveServer) -> None:
    owner, other = str(uuid.uuid4()), str(uuid.uuid4())
    table = sql.Identifier("public", TABLE)

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        mine = await subscribe(server, owner, "burst-owner")
        theirs = await subscribe(server, other, "burst-other")
        with psycopg.connect(server.database_url) as conn:
            row = conn.execute(INSERT, [owner, "draft"]).fetchone()
            assert row is not None
            conn.execute(sql.SQL("update {} set body = 'final' where id = %s").format(table), [row[0]])
            conn.execute(sql.SQL("delete from {} where id = %s").format(table), [row[0]])
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(INSERT, [other, "marker"])  # the other subscriber's own row, after
        got_mine = await receive_all(mine, 3)
        got_theirs = await receive_all(theirs, 1)
        await mine.close()
        await theirs.close()
        return got_mine, got_theirs

    mine, theirs = asyncio.run(scenario())
    assert [(d["type"], (d.get("record") or {}).get("body")) for d in mine] == [
        ("INSERT", "draft"), ("UPDATE", "final"), ("DELETE", None)]
    row_id = mine[0]["record"]["id"]
    assert mine[1]["old_record"] == {"id": row_id}
    assert mine[2]["old_record"] == {"id": row_id}  # under RLS a delete carries the primary key only
    # The other user saw none of the three (not even the delete), only their own row.
    assert [(d["type"], d["record"]["body"]) for d in theirs] == [("INSERT", "marker")]


def test_concurrent_writers_every_change_exactly_once_each_writer_in_order(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())
    writers, each = 4, 25

    def write(n: int) -> None:
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            for i in range(each):
                if i % 3 == 0:
                    with conn.transaction():  # some transactions of two changes
                        conn.execute(INSERT, [uid, f"w{n} {i} a"])
                        conn.execute(INSERT, [uid, f"w{n} {i} b"])
                else:
                    conn.execute(INSERT, [uid, f"w{n} {i}"])

    expected = {n: [f"w{n} {i}{s}" for i in range(each) for s in ((" a", " b") if i % 3 == 0 else ("",))]
                for n in range(writers)}
    total = sum(len(v) for v in expected.values())

    async def scenario() -> list[str]:
        client = await subscribe(server, uid, "writers")
        threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
        for t in threads:
            t.start()
        for t in threads:
            await asyncio.to_thread(t.join)
        got = await receive_all(client, total)
        await client.close()
        return [d["record"]["body"] for d in got]

    bodies = asyncio.run(scenario())
    assert len(bodies) == len(set(bodies)) == total
    for n in range(writers):
        assert [b for b in bodies if b.startswith(f"w{n} ")] == expected[n]


def test_replica_identity_full_sends_the_old_row_on_update_and_the_key_on_delete(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())
    table = sql.Identifier("public", TABLE)

    async def scenario() -> list[dict[str, Any]]:
        client = await subscribe(server, uid, "full")
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("alter table {} replica identity full").format(table))
            try:
                row = conn.execute(INSERT, [uid, "before"]).fetchone()
                assert row is not None
                conn.execute(sql.SQL("update {} set body = 'after' where id = %s").format(table), [row[0]])
                conn.execute(sql.SQL("delete from {} where id = %s").format(table), [row[0]])
            finally:
                conn.execute(sql.SQL("alter table {} replica identity default").format(table))
        got = await receive_all(client, 3)
        await client.close()
        return got

    _, update, delete = asyncio.run(scenario())
    row_id = update["record"]["id"]
    assert update["old_record"] == {"id": row_id, "owner": uid, "body": "before"}
    assert delete["old_record"] == {"id": row_id}


def test_policies_combine_as_in_postgres_on_the_logged_row(server: harness.LiveServer) -> None:
    """Permissive policies of the subscriber's role OR-ed, restrictive ones AND-ed, policies of
    other roles ignored, and a subquery referring to the logged row evaluated against it."""
    uid = str(uuid.uuid4())
    table = sql.Identifier("public", "ch_tree")
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("create table public.ch_roots (id bigint primary key, owner uuid)")
        conn.execute("grant select on public.ch_roots to authenticated")
        conn.execute("insert into public.ch_roots values (1, %s), (3, gen_random_uuid())", [uid])
        for statement in (
            "create table {} (id bigint primary key, parent bigint, owner uuid, body text)",
            "alter table {} enable row level security",
            "grant select on {} to anon, authenticated",
            "create policy mine on {} for select to authenticated using (owner = auth.uid())",
            "create policy children on {} for select to authenticated using"
            " (exists (select 1 from public.ch_roots r where r.id = ch_tree.parent and r.owner = auth.uid()))",
            "create policy everyone_anon on {} for select to anon using (true)",
            "create policy no_secrets on {} as restrictive for select using (body is distinct from 'secret')",
            "alter publication supabase_realtime add table {}",
        ):
            conn.execute(sql.SQL(statement).format(table))

    async def scenario() -> list[tuple[str, int]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        reply = await client.join("realtime:tree", {"postgres_changes": [{"event": "*", "schema": "public", "table": "ch_tree"}]},
                                  user_token(server.settings, uid))
        assert reply[4]["status"] == "ok", reply
        await client.receive("system")
        stranger = str(uuid.uuid4())
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            insert = sql.SQL("insert into {} (id, parent, owner, body) values (%s, %s, %s, %s)").format(table)
            conn.execute(insert, [1, None, uid, "mine"])              # seen: own row
            conn.execute(insert, [2, 1, stranger, "child"])           # seen: child of an own root
            conn.execute(insert, [3, None, stranger, "theirs"])       # not seen: anon's policy is not ours
            conn.execute(insert, [4, None, uid, "secret"])            # not seen: restrictive policy
            conn.execute(insert, [5, 3, stranger, "their child"])     # not seen
            conn.execute(sql.SQL("update {} set body = 'secret' where id = 2").format(table))   # not seen any more
            conn.execute(sql.SQL("delete from {} where id in (2, 3)").format(table))  # 2 as logged was secret: not seen
        got = await receive_all(client, 2)
        await client.close()
        return [(d["type"], d["record"]["id"]) for d in got]

    assert asyncio.run(scenario()) == [("INSERT", 1), ("INSERT", 2)]
