"""postgres_changes filters and column selection as current Realtime accepts them, evaluated
by PostgreSQL on the row's typed values, after which RLS still decides; refused bindings
answer with Realtime's system messages.

One channel holds a binding per filter plus a sentinel binding (`name=eq.END`): a change
message lists the ids of every binding it answers, and the END row, committed last, proves
everything before it has been delivered, so "not delivered" needs no waiting."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest
from psycopg import sql

from tests import harness
from tests.realtime.support import PhoenixClient, user_token

TABLE = "flt_items"
QTABLE = sql.Identifier("public", TABLE)
SENTINEL = {"event": "*", "schema": "public", "table": TABLE, "filter": "name=eq.END"}


@pytest.fixture(scope="module")
def server(database_url: str) -> Iterator[harness.LiveServer]:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("""create table {} (
            id bigserial primary key, owner uuid, name text, n int, price numeric, done boolean,
            tag varchar(20), ts timestamptz, secret text)""").format(QTABLE))
        conn.execute(sql.SQL("alter table {} enable row level security").format(QTABLE))
        conn.execute(sql.SQL("create policy own on {} for select using (owner = auth.uid())").format(QTABLE))
        # `secret` is not selectable by subscribers: no filter may read it
        conn.execute(sql.SQL("revoke select on {} from anon, authenticated").format(QTABLE))
        conn.execute(sql.SQL("grant select (id, owner, name, n, price, done, tag, ts) on {} to authenticated")
                     .format(QTABLE))
        conn.execute(sql.SQL("alter publication supabase_realtime add table {}").format(QTABLE))
    live = harness.start_server(database_url, args=["--no-migrate"])
    yield live
    live.stop()


ROWS: list[dict[str, Any]] = [
    {"name": "Apple", "n": 5, "price": "9.50", "done": True, "tag": "alpha", "ts": "2024-01-01T10:00:00Z"},
    {"name": "banana", "n": 10, "price": "20", "done": False, "tag": "beta", "ts": "2024-06-01T00:00:00Z"},
    {"name": None, "n": None, "price": None, "done": None, "tag": None, "ts": None},
    {"name": "a,b", "n": 7, "price": "9.49", "done": None, "tag": "Alpha2", "ts": "2024-02-01T00:00:00Z"},
]
# Each filter, and the rows (by index in ROWS) it lets through, as PostgreSQL decides.
CASES: list[tuple[str, list[int]]] = [
    ("n=eq.5", [0]),
    ("n=neq.5", [1, 3]),  # a null is not "not 5"
    ("n=lt.7", [0]),
    ("n=lte.7", [0, 3]),
    ("n=gt.7", [1]),
    ("n=gte.7", [1, 3]),
    ("n=in.(5,10)", [0, 1]),
    ("n=not.in.(5,10)", [3]),
    ("price=gte.9.5", [0, 1]),  # numbers, not text ('20' < '9.5' as text)
    ("ts=gt.2024-03-01T00:00:00Z", [1]),  # timestamps
    ("name=like.%an%", [1]),
    ("name=ilike.A%", [0, 3]),  # case folded
    ("name=not.ilike.A%", [1]),
    ("tag=like.alph%", [0]),  # varchar takes text's LIKE
    ("name=match.^[a-z]+$", [1]),  # POSIX regex, case-sensitive
    ("name=imatch.^APPLE$", [0]),
    ("name=is.null", [2]),
    ("name=not.is.null", [0, 1, 3]),
    ("done=is.true", [0]),
    ("done=is.false", [1]),
    ("done=not.is.true", [1, 2, 3]),
    ("done=is.unknown", [2, 3]),
    ("n=isdistinct.5", [1, 2, 3]),  # null-safe
    ("n=not.isdistinct.5", [0]),
    ('name=eq."a,b"', [3]),  # a quoted value keeps its comma
    ("n=gt.1,n=lt.8", [0, 3]),  # comma: AND
    ("name=in.(Apple,\"a,b\")", [0, 3]),
]


def binding(flt: str, **extra: Any) -> dict[str, Any]:
    return {"event": "*", "schema": "public", "table": TABLE, "filter": flt, **extra}


async def join(client: PhoenixClient, topic: str, bindings: list[dict[str, Any]],
               token: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The join reply's postgres_changes entries and the system message that follows."""
    reply = await client.join(f"realtime:{topic}", {"postgres_changes": bindings}, token)
    assert reply[4]["status"] == "ok", reply
    system = await client.receive("system")
    return reply[4]["response"]["postgres_changes"], system[4]


async def until_sentinel(client: PhoenixClient, topic: str, sentinel_id: int) -> list[tuple[list[int], dict[str, Any]]]:
    """Every change message of `topic` up to the sentinel's: (binding ids, data)."""
    got: list[tuple[list[int], dict[str, Any]]] = []
    while True:
        frame = await client.receive("postgres_changes")
        if frame[2] != f"realtime:{topic}":
            continue
        ids, data = frame[4]["ids"], frame[4]["data"]
        if sentinel_id in ids:
            return got
        got.append((ids, data))


def insert(database_url: str, rows: list[dict[str, Any]]) -> list[int]:
    cols = ["owner", "name", "n", "price", "done", "tag", "ts"]
    stmt = sql.SQL("insert into {} ({}) values ({}) returning id").format(
        QTABLE, sql.SQL(", ").join(map(sql.Identifier, cols)), sql.SQL(", ").join(sql.Placeholder() * len(cols)))
    ids = []
    with psycopg.connect(database_url, autocommit=True) as conn:
        for row in rows:
            fetched = conn.execute(stmt, [row.get(c) for c in cols]).fetchone()
            assert fetched is not None
            ids.append(fetched[0])
    return ids


def test_each_operator_as_postgresql_evaluates_it(server: harness.LiveServer) -> None:
    uid, other = str(uuid.uuid4()), str(uuid.uuid4())

    async def scenario() -> dict[str, list[str | None]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        response, system = await join(client, "ops", [binding(f) for f, _ in CASES] + [SENTINEL],
                                      user_token(server.settings, uid))
        assert system["status"] == "ok" and system["message"] == "Subscribed to PostgreSQL", system
        by_id = {entry["id"]: entry["filter"] for entry in response}
        assert len(by_id) == len(CASES) + 1
        # Rows the subscriber may see, then one matching every `n` filter that RLS hides.
        insert(server.database_url, [{**row, "owner": uid} for row in ROWS]
               + [{**ROWS[0], "owner": other}, {"name": "END", "owner": uid}])
        seen: dict[str, list[str | None]] = {f: [] for f, _ in CASES}
        for ids, data in await until_sentinel(client, "ops", response[-1]["id"]):
            assert data["record"]["owner"] == uid, data  # RLS: filters never widen what it lets through
            for i in ids:
                seen[by_id[i]].append(data["record"]["name"])
        await client.close()
        return seen

    seen = asyncio.run(scenario())
    assert seen == {f: [ROWS[i]["name"] for i in rows] for f, rows in CASES}


def test_updates_are_filtered_on_the_new_row_deletes_on_the_replica_identity(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())

    async def scenario() -> tuple[list[dict[str, Any]], list[tuple[str, list[str]]]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        [row_id] = insert(server.database_url, [{"name": "moving", "n": 1, "owner": uid}])
        bindings = [binding("n=eq.2"), binding(f"id=eq.{row_id}"), binding("name=eq.moving"), SENTINEL]
        response, _ = await join(client, "upd", bindings, user_token(server.settings, uid))
        names = {entry["id"]: entry["filter"] for entry in response}
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("update {} set n = 2 where id = %s").format(QTABLE), [row_id])
            conn.execute(sql.SQL("delete from {} where id = %s").format(QTABLE), [row_id])
        insert(server.database_url, [{"name": "END", "owner": uid}])
        got = [(data["type"], sorted(names[i] for i in ids))
               for ids, data in await until_sentinel(client, "upd", response[-1]["id"])]
        await client.close()
        return response, got

    _, got = asyncio.run(scenario())
    # UPDATE: n=eq.2 and name=eq.moving pass on the new row, id=eq too. DELETE: the default
    # replica identity carries the key only, so only a filter on the key can pass (as upstream).
    assert got[0][0] == "UPDATE" and len(got[0][1]) == 3
    assert got[1][0] == "DELETE" and got[1][1][0].startswith("id=eq.") and len(got[1][1]) == 1
    assert len(got) == 2


def test_select_limits_the_columns_a_change_carries(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())

    async def scenario() -> dict[str, dict[str, Any]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        bindings = [binding("n=eq.42", select=["name", "n"]), binding("n=eq.42", select=[]),
                    binding("n=eq.42"), SENTINEL]
        response, system = await join(client, "sel", bindings, user_token(server.settings, uid))
        assert system["status"] == "ok", system
        kinds = {response[0]["id"]: "name,n", response[1]["id"]: "key", response[2]["id"]: "all"}
        insert(server.database_url, [{"name": "picked", "n": 42, "price": "1", "owner": uid},
                                     {"name": "END", "owner": uid}])
        got = {kinds[ids[0]]: data for ids, data in await until_sentinel(client, "sel", response[-1]["id"])}
        await client.close()
        return got

    got = asyncio.run(scenario())
    assert [c["name"] for c in got["name,n"]["columns"]] == ["id", "name", "n"]  # the primary key comes along
    assert set(got["name,n"]["record"]) == {"id", "name", "n"}
    assert [c["name"] for c in got["key"]["columns"]] == ["id"]
    assert set(got["key"]["record"]) == {"id"}
    assert set(got["all"]["record"]) == {"id", "owner", "name", "n", "price", "done", "tag", "ts"}  # not `secret`


UNABLE = ("Unable to subscribe to changes with given parameters. An exception happened so please check your"
          f" connect parameters: [event: *, schema: public, table: {TABLE}, filters: ")


@pytest.mark.parametrize("entry,message", [
    (binding("n=foo.1"), 'Error parsing `filter` params: ["foo", "1"]'),
    (binding("wrong"), 'Error parsing `filter` params: ["wrong"]'),
    (binding("n=in.1,2"), "Error parsing `filter` params: `in` filter value must be wrapped by parentheses"),
    (binding("n=eq.1,"),
     "Error parsing `filter` params: filter must not contain empty segments (check for extra commas)"),
    (binding("n=eq.1", select="name"),
     'Error parsing `select` params: expected a list of column name strings, e.g. select: ["col1", "col2"]'),
    ({"event": "*", "schema": "public", "table": "nope"},
     "Unable to subscribe to changes with given parameters. Please check Realtime is enabled for the given"
     " connect parameters: [event: *, schema: public, table: nope, filters: [], select: nil]"),
    (binding("nope=eq.1"),
     UNABLE + '[{"nope", "eq", "1", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     " invalid column for filter nope"),
    (binding("secret=eq.x"),  # a column the role may not select
     UNABLE + '[{"secret", "eq", "x", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     " invalid column for filter secret"),
    (binding("n=eq.abc"),
     UNABLE + '[{"n", "eq", "abc", false}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation)'
     ' invalid input syntax for type integer: "abc"'),
    (binding("n=not.in.(1,x)"),
     UNABLE + '[{"n", "in", "{1,x}", true}], select: nil]. Exception: ERROR 22P02 (invalid_text_representation)'
     ' invalid input syntax for type integer: "x"'),
    (binding("n=like.1%"),
     UNABLE + '[{"n", "like", "1%", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     ' operator like is not supported on column n of type integer: invalid input syntax for type integer: "1%"'),
    (binding("name=match.(a"),
     UNABLE + '[{"name", "match", "(a", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     " invalid regular expression for match filter: invalid regular expression: parentheses () not balanced"),
    (binding("done=is.maybe"),
     UNABLE + '[{"done", "is", "maybe", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     " invalid value for is filter: must be null, true, false, or unknown"),
    (binding("n=is.true"),
     UNABLE + '[{"n", "is", "true", false}], select: nil]. Exception: ERROR P0001 (raise_exception)'
     " is true filter requires a boolean column, got integer"),
    (binding("n=in.(" + ",".join(map(str, range(101))) + ")"), None),  # too many values (checked below)
    (binding("n=eq.1", select=["name", "secret"]),
     UNABLE + '[{"n", "eq", "1", false}], select: ["name", "secret"]]. Exception: ERROR P0001 (raise_exception)'
     " invalid column for select secret"),
])
def test_refused_bindings_answer_with_realtimes_system_message(
        server: harness.LiveServer, entry: dict[str, Any], message: str | None) -> None:
    async def scenario() -> tuple[list[dict[str, Any]], dict[str, Any]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        response, system = await join(client, "refused", [entry], user_token(server.settings, str(uuid.uuid4())))
        await client.close()
        return response, system

    response, system = asyncio.run(scenario())
    assert response[0]["filter" if "filter" in entry else "table"] == entry.get("filter", entry.get("table"))
    assert system["status"] == "error" and system["extension"] == "postgres_changes" and system["channel"] == "refused"
    if message is None:
        assert system["message"].startswith(UNABLE) and system["message"].endswith(
            "Exception: ERROR P0001 (raise_exception) too many values for `in` filter. Maximum 100"), system
    else:
        assert system["message"] == message


def test_one_refused_binding_subscribes_none(server: harness.LiveServer) -> None:
    uid = str(uuid.uuid4())

    def subscriptions() -> int:
        with psycopg.connect(server.database_url) as conn:
            row = conn.execute("select count(*) from realtime.subscription where claims ->> 'sub' = %s",
                               [uid]).fetchone()
            assert row is not None
            return int(row[0])

    async def scenario() -> tuple[dict[str, Any], int, int]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        token = user_token(server.settings, uid)
        _, refused = await join(client, "half", [binding("n=eq.1"), binding("nope=eq.1")], token)
        after_refusal = subscriptions()
        _, accepted = await join(client, "whole", [binding("n=eq.1"), binding("n=eq.2")], token)
        assert accepted["message"] == "Subscribed to PostgreSQL"
        after_success = subscriptions()
        await client.close()
        return refused, after_refusal, after_success

    refused, after_refusal, after_success = asyncio.run(scenario())
    assert "invalid column for filter nope" in refused["message"]
    assert (after_refusal, after_success) == (0, 2)


def test_a_filter_on_a_column_the_role_can_no_longer_read_lets_nothing_through(server: harness.LiveServer) -> None:
    """Column privileges are read again at each change: once `tag` may no longer be selected,
    a filter on it passes nothing (it would otherwise tell its value)."""
    uid = str(uuid.uuid4())
    table = sql.Identifier("public", "flt_revoked")
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create table {} (id bigserial primary key, owner uuid, name text, tag text)").format(table))
        conn.execute(sql.SQL("alter publication supabase_realtime add table {}").format(table))

    def add(name: str, tag: str | None) -> None:
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("insert into {} (owner, name, tag) values (%s, %s, %s)").format(table), [uid, name, tag])

    async def scenario() -> list[str]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        entries = [{"event": "INSERT", "schema": "public", "table": "flt_revoked", "filter": f}
                   for f in ("tag=eq.secret", "name=eq.END")]
        response, system = await join(client, "revoked", entries, user_token(server.settings, uid))
        assert system["status"] == "ok", system
        add("before", "secret")
        frame = await client.receive("postgres_changes")  # checked while `tag` was still readable
        got = [frame[4]["data"]["record"]["name"]]
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(sql.SQL("revoke select on {} from authenticated").format(table))
            conn.execute(sql.SQL("grant select (id, owner, name) on {} to authenticated").format(table))
        add("after", "secret")
        add("END", None)
        got += [data["record"]["name"] for _, data in await until_sentinel(client, "revoked", response[1]["id"])]
        await client.close()
        return got

    assert asyncio.run(scenario()) == ["before"]
