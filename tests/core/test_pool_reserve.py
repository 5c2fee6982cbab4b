"""The pool's reserve for quick work, on a real PostgreSQL: a shape seen holding its
connection past the budget holds at most `max_size - reserve` connections; quick borrowers
get the rest at once while slow ones wait in line; nothing is miscounted when a waiter is
cancelled or a connection breaks."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

import pytest
from psycopg_pool import PoolTimeout

from server.core.pool import Pool
from server.rest import flight

SLOW = b"slow search"
QUICK = b"one-row read"
BUDGET = 0.05


def statement(seconds: float) -> flight.Statement:
    return flight.to_statement(f"select pg_sleep({seconds})".encode())


async def run(pool: Pool, shape: bytes, seconds: float, timeout: float | None = None) -> None:
    lease = await pool.acquire(timeout, shape)
    try:
        await flight.run(lease.conn, [(statement(seconds), ())], lease)
    finally:
        await pool.release(lease)


def scenario(database_url: str, body: Callable[[Pool], Awaitable[object]], size: int = 3, reserve: int = 1) -> object:
    async def go() -> object:
        pool = Pool(database_url, size, name="reserve", timeout=10.0, reserve=reserve, slow_budget=BUDGET)
        await pool.open()
        try:
            return await body(pool)
        finally:
            await pool.close()
    return asyncio.run(go())


async def settle(condition: Callable[[], bool]) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("the pool never reached the state")


def test_slow_shapes_leave_the_reserve_to_quick_borrowers(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, float, int]:
        # a first wave of a new kind: taken as quick, counted slow once past the budget
        wave = [asyncio.create_task(run(pool, SLOW, 0.5)) for _ in range(3)]
        await settle(lambda: pool.slow_lent == 3)
        more = [asyncio.create_task(run(pool, SLOW, 0.5)) for _ in range(4)]
        await asyncio.gather(*wave)
        # the wave ended: two slow ones run again (max_size - reserve), the third waits
        await settle(lambda: pool.slow_lent == 2 and pool.waiting == 2)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await run(pool, QUICK, 0)
        quick = loop.time() - started
        held = pool.slow_lent
        await asyncio.gather(*more)
        return held, quick, pool.slow_lent

    held, quick, after = scenario(database_url, body)  # type: ignore[misc]
    assert held == 2  # never the reserve
    assert quick < 0.2  # served from the reserve, not after the slow ones in line
    assert after == 0


def test_a_slow_waiter_cancelled_or_timed_out_gives_its_turn_back(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int]:
        pool.slow.mark(SLOW)  # type: ignore[union-attr]
        holders = [asyncio.create_task(run(pool, SLOW, 0.3)) for _ in range(2)]
        await settle(lambda: pool.slow_lent == 2)
        cancelled = asyncio.create_task(run(pool, SLOW, 0))
        await settle(lambda: pool.waiting == 1)
        with pytest.raises(PoolTimeout):
            await run(pool, SLOW, 0, timeout=0.05)
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        await asyncio.gather(*holders)
        await run(pool, SLOW, 0)
        return pool.slow_lent, pool.waiting

    assert scenario(database_url, body) == (0, 0)


def test_a_slow_borrower_whose_connection_breaks_is_uncounted(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[int, int]:
        pool.slow.mark(SLOW)  # type: ignore[union-attr]
        lease = await pool.acquire(shape=SLOW)
        assert pool.slow_lent == 1
        await lease.conn.close()  # broken while lent: dropped on release
        await pool.release(lease)
        await run(pool, SLOW, 0)
        return pool.slow_lent, pool.size

    slow_lent, size = scenario(database_url, body)  # type: ignore[misc]
    assert slow_lent == 0 and size <= 3


def test_without_a_reserve_nothing_is_timed(database_url: str) -> None:
    async def body(pool: Pool) -> tuple[object, int]:
        await run(pool, SLOW, 0.1)
        return pool.slow, pool.slow_lent

    assert scenario(database_url, body, reserve=0) == (None, 0)
