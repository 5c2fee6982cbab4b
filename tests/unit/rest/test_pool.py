"""server.rest.pool: connections lent one at a time, waited for, replaced when broken."""

from __future__ import annotations

import asyncio

import psycopg
import pytest
from psycopg_pool import PoolTimeout

from server.rest import flight
from server.rest.pool import RestPool
from tests.harness import until

PID = flight.to_statement(b"select pg_backend_pid()", prepare=True)


async def backend_pid(pool: RestPool) -> int:
    lease = await pool.acquire()
    try:
        results = await flight.run(lease.conn, [(PID, ())], lease)
        return int(flight.row(results[0])[0])
    finally:
        await pool.release(lease)


def test_reuses_connections_and_waits_for_a_free_one(database_url: str) -> None:
    async def go():
        pool = RestPool(database_url, max_size=1, timeout=5)
        await pool.open()
        try:
            first, second = await backend_pid(pool), await backend_pid(pool)
            lease = await pool.acquire()
            waiter = asyncio.create_task(backend_pid(pool))
            await until(lambda: len(pool._waiting) == 1, what="the second caller queued")
            blocked = not waiter.done()
            await pool.release(lease)
            third = await waiter
            return first, second, blocked, third
        finally:
            await pool.close()

    first, second, blocked, third = asyncio.run(go())
    assert first == second == third and blocked


def test_times_out_when_every_connection_is_lent(database_url: str) -> None:
    async def go():
        pool = RestPool(database_url, max_size=1, timeout=0.2)
        await pool.open()
        lease = await pool.acquire()
        try:
            with pytest.raises(PoolTimeout):
                await pool.acquire()
        finally:
            await pool.release(lease)
            await pool.close()

    asyncio.run(go())


def test_broken_connection_is_replaced(database_url: str) -> None:
    async def go():
        pool = RestPool(database_url, max_size=1, timeout=5)
        await pool.open()
        try:
            before = await backend_pid(pool)
            async with await psycopg.AsyncConnection.connect(database_url, autocommit=True) as admin:
                await admin.execute("select pg_terminate_backend(%s)", [before])
            # the idle socket reports the close to the loop, which marks the connection broken
            await until(lambda: all(item.broken for item in pool._idle), what="the closed connection noticed")
            after = await backend_pid(pool)
            return before, after
        finally:
            await pool.close()

    before, after = asyncio.run(go())
    assert before != after


def test_failed_flight_leaves_a_usable_connection(database_url: str) -> None:
    bad = flight.to_statement(b"select 1/0")

    async def go():
        pool = RestPool(database_url, max_size=1, timeout=5)
        await pool.open()
        try:
            lease = await pool.acquire()
            try:
                with pytest.raises(psycopg.errors.DivisionByZero):
                    await flight.run(lease.conn, [(bad, ())], lease)
            finally:
                await pool.release(lease)
            return await backend_pid(pool)
        finally:
            await pool.close()

    assert asyncio.run(go()) > 0
