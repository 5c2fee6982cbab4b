"""server.rest.flight: placeholders, encoding, and one-flight transactions on a real server."""

from __future__ import annotations

import asyncio

import psycopg
import pytest

from server.rest import flight


def test_placeholders_become_numbered() -> None:
    stmt = flight.to_statement(b"select %(a)s, %(b)s, %(a)s, 'x%%'")
    assert stmt.text == b"select $1, $2, $1, 'x%'" and stmt.names == ("a", "b")
    assert stmt.bind({"b": 2, "a": "x"}) == [b"x", b"2"]
    positional = flight.to_statement("select %s, %s")
    assert positional.text == b"select $1, $2" and positional.bind(["a", None]) == [b"a", None]
    with pytest.raises(ValueError):
        flight.to_statement(b"select %s, %(a)s")


def test_encode() -> None:
    assert flight.encode(None) is None
    assert flight.encode("é") == "é".encode()
    assert flight.encode(True) == b"t" and flight.encode(12) == b"12"
    with pytest.raises(TypeError):
        flight.encode({"a": 1})


def run(database_url: str, body) -> object:
    async def go():
        conn = await psycopg.AsyncConnection.connect(database_url)
        try:
            return await body(conn)
        finally:
            await conn.close()
    return asyncio.run(go())


BEGIN = flight.to_statement(b"BEGIN", prepare=True)
COMMIT = flight.to_statement(b"COMMIT", prepare=True)


def test_one_transaction_and_prepared_once(database_url: str) -> None:
    setting = flight.to_statement(b"select set_config('my.v', %s, true)", prepare=True)
    read = flight.to_statement(b"select current_setting('my.v', true), %(n)s::int + 1", prepare=True)

    async def body(conn):
        answers = []
        for value in ("a", "b"):
            results = await flight.run(conn, [(BEGIN, ()), (setting, setting.bind([value])),
                                              (read, read.bind({"n": 41})), (COMMIT, ())])
            answers.append(flight.rows(results[2]))
        names = await conn.execute("select count(*) from pg_prepared_statements where name like '\\_slrest\\_%'")
        # the transaction-local setting is gone after COMMIT
        after = await conn.execute("select current_setting('my.v', true)")
        return answers, (await names.fetchone())[0], (await after.fetchone())[0]

    answers, prepared, after = run(database_url, body)
    assert answers == [[("a", "42")], [("b", "42")]]
    assert prepared == 4 and after in (None, "")


def test_error_raises_and_connection_recovers(database_url: str) -> None:
    bad = flight.to_statement(b"select 1/0", prepare=True)
    ok = flight.to_statement(b"select 1")

    async def body(conn):
        with pytest.raises(psycopg.errors.DivisionByZero):
            await flight.run(conn, [(BEGIN, ()), (bad, ()), (COMMIT, ())])
        state = conn.pgconn.transaction_status
        await conn.rollback()
        results = await flight.run(conn, [(ok, ())])
        return state, flight.rows(results[0])

    state, row = run(database_url, body)
    assert state == psycopg.pq.TransactionStatus.INERROR and row == [("1",)]


def test_failed_prepare_is_not_remembered(database_url: str) -> None:
    broken = flight.to_statement(b"select nope_no_such_column", prepare=True)

    async def body(conn):
        for _ in range(2):  # the second attempt prepares again (and fails the same way)
            with pytest.raises(psycopg.errors.UndefinedColumn):
                await flight.run(conn, [(broken, ())])
        return broken.text in flight.PREPARED.of(conn)

    assert run(database_url, body) is False


def test_prepared_statements_are_bounded_per_connection(database_url: str, monkeypatch) -> None:
    monkeypatch.setattr(flight, "MAX_PREPARED", 3)

    async def body(conn):
        for i in range(6):
            stmt = flight.to_statement(b"select %s::int + " + str(i).encode(), prepare=True)
            results = await flight.run(conn, [(stmt, stmt.bind([1]))])
            assert flight.rows(results[0]) == [(str(1 + i),)]
        cur = await conn.execute("select count(*) from pg_prepared_statements where name like '\\_slrest\\_%'")
        return (await cur.fetchone())[0], len(flight.PREPARED.of(conn))

    assert run(database_url, body) == (3, 3)


def test_unprepared_flights_leave_no_statement_on_the_server(database_url: str) -> None:
    """PGRST_DB_PREPARED_STATEMENTS=false: a transaction-mode pooler may run the next flight on
    a server connection that never saw a statement prepared, so none is named."""
    stmt = flight.to_statement(b"select %s::int * 2", prepare=True)

    async def body(conn):
        for _ in range(3):
            results = await flight.run(conn, [(BEGIN, ()), (stmt, stmt.bind([21])), (COMMIT, ())], prepare=False)
            assert flight.rows(results[1]) == [("42",)]
        cur = await conn.execute("select count(*) from pg_prepared_statements")
        return (await cur.fetchone())[0], len(flight.PREPARED.of(conn))

    assert run(database_url, body) == (0, 0)
