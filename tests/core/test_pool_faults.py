"""Faults under the pool and its flights, on a real PostgreSQL: the server closing the
socket mid-statement, the borrowing task cancelled mid-statement, timeouts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import psycopg
import pytest
from psycopg_pool import PoolTimeout

from server.core.pool import Pool
from server.rest import flight
from tests import harness

SLEEP = flight.to_statement(b"select pg_sleep(60)")
BEGIN = flight.to_statement(b"begin")
ROLLBACK = flight.to_statement(b"rollback")
SHORT_TIMEOUT = flight.to_statement(b"select set_config('statement_timeout', '100ms', true)")
DEADLINE = 20.0  # seconds a poll waits for the server to reach a state



async def sleeping_flight(pool: Pool, pids: list[int]) -> None:
    """A borrower whose statement runs until something happens to it."""
    lease = await pool.acquire()
    try:
        pids.append(int(lease.conn.pgconn.backend_pid))
        await flight.run(lease.conn, [(SLEEP, ())], lease)
    finally:
        await pool.release(lease)


async def sleeping_block(pool: Pool, pids: list[int]) -> None:
    async with pool.connection() as conn:
        pids.append(int(conn.pgconn.backend_pid))
        await conn.execute("select pg_sleep(60)")


async def sleeping(admin: psycopg.AsyncConnection, pids: list[int]) -> int:
    """Poll to a deadline until the borrower's statement is running; its backend pid."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while loop.time() < deadline:
        if pids:
            cur = await admin.execute("select 1 from pg_stat_activity where pid = %s and state = 'active'"
                                      " and query like 'select pg_sleep%%'", [pids[0]])
            if await cur.fetchone():
                return pids[0]
        await asyncio.sleep(0.01)
    raise AssertionError("the statement never ran")


async def gone(admin: psycopg.AsyncConnection, pid: int) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while loop.time() < deadline:
        cur = await admin.execute("select 1 from pg_stat_activity where pid = %s", [pid])
        if await cur.fetchone() is None:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"backend {pid} still there")


Borrower = Callable[[Pool, list[int]], Awaitable[None]]


def scenario(database_url: str, body: Callable[[Pool, psycopg.AsyncConnection], Awaitable[object]]) -> object:
    async def go() -> object:
        pool = Pool(database_url, 1, name="faults", timeout=5.0)
        await pool.open()
        try:
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
                return await body(pool, admin)
        finally:
            await pool.close()
    return asyncio.run(go())


@pytest.mark.parametrize("borrower", [sleeping_flight, sleeping_block], ids=["flight", "psycopg"])
def test_server_closing_the_socket_mid_statement(database_url: str, borrower: Borrower) -> None:
    """The borrower gets a connection error, the connection is dropped, the next one is fresh."""
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[BaseException | None, int, int, int]:
        pids: list[int] = []
        task = asyncio.create_task(borrower(pool, pids))
        pid = await sleeping(admin, pids)
        await admin.execute("select pg_terminate_backend(%s)", [pid])
        error = (await asyncio.gather(task, return_exceptions=True))[0]
        size = pool.size
        return error, pid, size, await harness.flight_pid(pool)

    error, pid, size, after = scenario(database_url, body)  # type: ignore[misc]
    assert isinstance(error, psycopg.OperationalError)
    assert size == 0 and after != pid


def test_cancelled_mid_flight_the_connection_is_not_lent_again(database_url: str) -> None:
    """Its results are still on the way: the connection is closed, never handed out again."""
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[int, int, int]:
        pids: list[int] = []
        task = asyncio.create_task(sleeping_flight(pool, pids))
        pid = await sleeping(admin, pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        size = pool.size
        after = await harness.flight_pid(pool)
        await admin.execute("select pg_terminate_backend(%s)", [pid])  # its pg_sleep runs on
        await gone(admin, pid)
        return pid, size, after

    pid, size, after = scenario(database_url, body)  # type: ignore[misc]
    assert size == 0 and after != pid


def test_cancelled_mid_block_the_statement_is_cancelled_and_the_connection_kept(database_url: str) -> None:
    """psycopg cancels the statement on the server (psycopg_pool's behaviour), the block rolls
    back, and the connection serves the next borrower."""
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[int, int]:
        pids: list[int] = []
        task = asyncio.create_task(sleeping_block(pool, pids))
        pid = await sleeping(admin, pids)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return pid, await harness.flight_pid(pool)

    pid, after = scenario(database_url, body)  # type: ignore[misc]
    assert pid == after


def test_statement_timeout_fails_the_flight_and_keeps_the_connection(database_url: str) -> None:
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[int, int]:
        before = await harness.flight_pid(pool)
        lease = await pool.acquire()
        try:
            with pytest.raises(psycopg.errors.QueryCanceled):
                await flight.run(lease.conn, [(BEGIN, ()), (SHORT_TIMEOUT, ()), (SLEEP, ())], lease)
            await flight.run(lease.conn, [(ROLLBACK, ())], lease)  # as REST does after a failed flight
        finally:
            await pool.release(lease)
        return before, await harness.flight_pid(pool)

    before, after = scenario(database_url, body)  # type: ignore[misc]
    assert before == after


def test_a_flight_left_in_a_transaction_is_not_lent_again(database_url: str) -> None:
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[int, int, int]:
        before = await harness.flight_pid(pool)
        lease = await pool.acquire()
        try:
            with pytest.raises(psycopg.errors.QueryCanceled):
                await flight.run(lease.conn, [(BEGIN, ()), (SHORT_TIMEOUT, ()), (SLEEP, ())], lease)
        finally:
            await pool.release(lease)  # still in the failed transaction: dropped
        size = pool.size
        return before, size, await harness.flight_pid(pool)

    before, size, after = scenario(database_url, body)  # type: ignore[misc]
    assert size == 0 and before != after


def test_acquisition_times_out_while_every_connection_runs(database_url: str) -> None:
    async def body(pool: Pool, admin: psycopg.AsyncConnection) -> tuple[int, int]:
        pool.timeout = 0.2
        pids: list[int] = []
        task = asyncio.create_task(sleeping_flight(pool, pids))
        pid = await sleeping(admin, pids)
        with pytest.raises(PoolTimeout):
            await harness.flight_pid(pool)
        await admin.execute("select pg_cancel_backend(%s)", [pid])
        error = (await asyncio.gather(task, return_exceptions=True))[0]
        assert isinstance(error, psycopg.errors.QueryCanceled)
        return pid, await harness.flight_pid(pool)

    pid, after = scenario(database_url, body)  # type: ignore[misc]
    assert pid == after  # the cancelled statement left it idle: lent again
