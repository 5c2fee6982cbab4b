"""server.core.pool: connections lent for flights (acquire/release) or to psycopg
(connection()), waited for in line, replaced when broken, on a real PostgreSQL."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable

import psycopg
import pytest
from psycopg import sql
from psycopg_pool import PoolTimeout

from server.core.health import DatabaseHealth, DatabaseUnavailable
from server.core.pool import Pool
from server.rest import flight
from tests import harness
from tests.harness import until


async def lent_pid(pool: Pool) -> int:
    async with pool.connection() as conn:
        cur = await conn.execute("select pg_backend_pid()")
        row = await cur.fetchone()
        assert row is not None
        return int(row[0])


def run(database_url: str, body: Callable[[Pool], Awaitable[object]], **options: object) -> object:
    async def go() -> object:
        pool = Pool(database_url, **{"max_size": 1, "name": "test", "timeout": 5.0, **options})  # type: ignore[arg-type]
        await pool.open()
        try:
            return await body(pool)
        finally:
            await pool.close()
    return asyncio.run(go())


def test_reuses_connections_and_waits_for_a_free_one(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int, bool, int]:
        first, second = await harness.flight_pid(pool), await lent_pid(pool)
        lease = await pool.acquire()
        waiter = asyncio.create_task(harness.flight_pid(pool))
        await until(lambda: pool.waiting == 1, what="the second caller queued")
        blocked = not waiter.done()
        await pool.release(lease)
        return first, second, blocked, await waiter

    first, second, blocked, third = run(database_url, body)  # type: ignore[misc]
    assert first == second == third and blocked


def test_times_out_when_every_connection_is_lent(database_url: str) -> None:
    async def body(pool: Pool) -> None:
        lease = await pool.acquire()
        try:
            with pytest.raises(PoolTimeout):
                await pool.acquire()
            with pytest.raises(PoolTimeout):
                async with pool.connection():
                    pass
            assert pool.waiting == 0
        finally:
            await pool.release(lease)
        assert pool.idle == 1

    run(database_url, body, timeout=0.2)


def test_fails_fast_while_the_watchdog_says_down(database_url: str) -> None:
    async def body(pool: Pool) -> None:
        assert pool.watchdog is not None
        pool.watchdog.up = False
        with pytest.raises(DatabaseUnavailable):
            await pool.acquire()
        pool.watchdog.up = True
        assert await harness.flight_pid(pool) > 0

    run(database_url, body, watchdog=DatabaseHealth(database_url))


def test_broken_idle_connection_is_replaced(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int, int]:
        before = await harness.flight_pid(pool)
        await lent_pid(pool)  # lent to psycopg and back: its socket is watched again
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
            await admin.execute("select pg_terminate_backend(%s)", [before])
        # the idle socket reports the close to the loop, which marks the connection broken
        await until(lambda: all(item.broken for item in pool._idle), what="the closed connection noticed")
        after = await harness.flight_pid(pool)
        return before, after, pool.size

    before, after, size = run(database_url, body)  # type: ignore[misc]
    assert before != after and size == 1


def test_failed_flight_leaves_a_usable_connection(database_url: str) -> None:
    bad = flight.to_statement(b"select 1/0")

    async def body(pool: Pool) -> tuple[int, int]:
        before = await harness.flight_pid(pool)
        lease = await pool.acquire()
        try:
            with pytest.raises(psycopg.errors.DivisionByZero):
                await flight.run(lease.conn, [(bad, ())], lease)
        finally:
            await pool.release(lease)
        return before, await harness.flight_pid(pool)

    before, after = run(database_url, body)  # type: ignore[misc]
    assert before == after


def test_connection_commits_at_the_end_and_rolls_back_on_error(database_url: str) -> None:
    table = sql.Identifier(f"pool_{uuid.uuid4().hex[:8]}")

    async def body(pool: Pool) -> tuple[list[tuple[str]], int, int]:
        async with pool.connection() as conn:
            await conn.execute(sql.SQL("create table {} (v text)").format(table))
            await conn.execute(sql.SQL("insert into {} values ('kept')").format(table))
        pid = await lent_pid(pool)
        with pytest.raises(RuntimeError):
            async with pool.connection() as conn:
                await conn.execute(sql.SQL("insert into {} values ('dropped')").format(table))
                raise RuntimeError("the block fails")
        async with pool.connection() as conn, conn.transaction():  # psycopg's own blocks work too
            await conn.execute(sql.SQL("insert into {} values ('in a block')").format(table))
        async with await psycopg.AsyncConnection.connect(database_url) as other:
            cur = await other.execute(sql.SQL("select v from {} order by v").format(table))
            rows = await cur.fetchall()
            await other.execute(sql.SQL("drop table {}").format(table))
            await other.commit()
        return rows, pid, await harness.flight_pid(pool)

    rows, pid, after = run(database_url, body)  # type: ignore[misc]
    assert rows == [("in a block",), ("kept",)]
    assert pid == after  # the same connection served every borrower, in both ways


def test_a_waiter_cancelled_as_it_is_served_passes_the_connection_on(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int, int]:
        before = await harness.flight_pid(pool)
        lease = await pool.acquire()
        waiter = asyncio.create_task(pool.acquire())
        await until(lambda: pool.waiting == 1, what="the waiter queued")
        await pool.release(lease)  # handed to the waiter, which has not run yet...
        waiter.cancel()  # ...and is cancelled before it does
        with pytest.raises(asyncio.CancelledError):
            await waiter
        return before, await harness.flight_pid(pool), pool.size

    before, after, size = run(database_url, body, timeout=2.0)  # type: ignore[misc]
    assert before == after and size == 1


def test_check_drops_what_does_not_answer(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int, int]:
        first = await harness.flight_pid(pool)
        lease = await pool.acquire()
        second = await harness.flight_pid(pool)  # a second connection, while the first is lent
        await pool.release(lease)
        async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
            await admin.execute("select pg_terminate_backend(%s)", [second])
        await pool.check()
        return first, second, pool.size

    first, second, size = run(database_url, body, max_size=2)  # type: ignore[misc]
    assert first != second and size == 1


def test_close_turns_waiters_away_and_closes_what_comes_back(database_url: str) -> None:
    async def go() -> None:
        pool = Pool(database_url, 1, name="test", timeout=5.0)
        await pool.open()
        lease = await pool.acquire()
        waiter = asyncio.create_task(pool.acquire())
        await until(lambda: pool.waiting == 1, what="the waiter queued")
        await pool.close()
        with pytest.raises(PoolTimeout):
            await waiter
        await pool.release(lease)
        assert lease.conn.closed and pool.size == 0
        with pytest.raises(PoolTimeout):
            await pool.acquire()

    asyncio.run(go())


def test_open_opens_the_minimum(database_url: str) -> None:
    async def go() -> tuple[int, int]:
        pool = Pool(database_url, 5, name="test", min_size=2)
        await pool.open(wait=True, timeout=10)
        try:
            return pool.size, pool.idle
        finally:
            await pool.close()

    assert asyncio.run(go()) == (2, 2)


def test_a_rolled_back_block_leaves_the_flights_prepared_statements(database_url: str) -> None:
    """psycopg deallocates every prepared statement of the session after a rollback when it
    prepared some itself: the flights' own would go with them."""
    async def body(pool: Pool) -> tuple[int, int]:
        first = await harness.flight_pid(pool)  # PID is now prepared on the connection, by the flight
        with pytest.raises(RuntimeError):
            async with pool.connection() as conn:
                for _ in range(5):  # often enough for psycopg to prepare it, if it prepares at all
                    await conn.execute("select %s::int", [1])
                raise RuntimeError("the block fails: rolled back")
        return first, await harness.flight_pid(pool)

    first, second = run(database_url, body)  # type: ignore[misc]
    assert first == second
