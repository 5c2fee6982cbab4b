"""Connection pools: `api` logs in as authenticator (role switched per request), `admin`
as the owner, for the platform's own bookkeeping (auth tables, storage metadata...)."""

from __future__ import annotations

from psycopg_pool import AsyncConnectionPool


def make_pool(conninfo: str, size: int, name: str) -> AsyncConnectionPool:
    # No `reset` callback: with one, psycopg_pool hands every returned connection to a
    # background task before the next borrower may have it, a cost paid by every request.
    # Services keep session characteristics at their defaults (REST reads are read-only
    # per transaction, with BEGIN ... READ ONLY), so there is nothing to reset.
    return AsyncConnectionPool(
        conninfo,
        min_size=min(2, size),
        max_size=size,
        name=name,
        open=False,
        kwargs={"autocommit": False, "prepare_threshold": 3},
    )
