"""Connection pools: `api` logs in as authenticator (role switched per request), `admin`
as the owner, for the platform's own bookkeeping (auth tables, storage metadata...)."""

from __future__ import annotations

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool


async def _restore_defaults(conn: AsyncConnection) -> None:
    # A service may flip a connection to read-only transactions (REST GETs); the next
    # borrower, whatever its service, gets the pool's defaults back. No round trip.
    if conn.read_only is not None:
        await conn.set_read_only(None)


def make_pool(conninfo: str, size: int, name: str) -> AsyncConnectionPool:
    return AsyncConnectionPool(
        conninfo,
        min_size=min(2, size),
        max_size=size,
        name=name,
        open=False,
        reset=_restore_defaults,
        kwargs={"autocommit": False, "prepare_threshold": 3},
    )
