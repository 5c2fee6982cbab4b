"""Connection pools: `api` logs in as authenticator (role switched per request), `admin`
as the owner, for the platform's own bookkeeping (auth tables, storage metadata...)."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from server.db import health
from server.db.health import DatabaseHealth

# How long a request waits for a free connection before its service answers an error
# (PostgREST's db-pool-acquisition-timeout default).
ACQUIRE_TIMEOUT = 10.0


class GuardedPool(AsyncConnectionPool):
    """A psycopg pool that fails fast while the watchdog says the database is down."""

    def __init__(self, *args: Any, watchdog: DatabaseHealth | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.watchdog = watchdog

    async def getconn(self, timeout: float | None = None) -> AsyncConnection[Any]:
        if self.watchdog is not None:
            self.watchdog.check()
        return await super().getconn(timeout)


async def _track(conn: AsyncConnection[Any]) -> None:
    health.track(conn)


def make_pool(conninfo: str, size: int, name: str, watchdog: DatabaseHealth | None = None) -> GuardedPool:
    # No `reset` callback: with one, psycopg_pool hands every returned connection to a
    # background task before the next borrower may have it, a cost paid by every request.
    # The services borrowing from these pools (auth, storage, realtime, REST's explain; REST
    # itself has its own pipelined pool, server/rest/pool.py) set role and claims with
    # set_config(..., true), local to the transaction, so there is nothing to reset.
    return GuardedPool(
        conninfo,
        min_size=min(2, size),
        max_size=size,
        name=name,
        open=False,
        timeout=ACQUIRE_TIMEOUT,
        configure=_track,
        kwargs={"autocommit": False, "prepare_threshold": 3, "connect_timeout": health.CONNECT_TIMEOUT},
        watchdog=watchdog,
    )
