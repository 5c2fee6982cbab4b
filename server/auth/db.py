"""One owner-role transaction per auth request (auth tables are the platform's own)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TypeVar

import psycopg
from psycopg import AsyncConnection

from server.auth.errors import internal
from server.auth.session_tokens import CommitThen
from server.core.context import AppContext
from server.core.health import is_unavailable

T = TypeVar("T")
log = logging.getLogger("supalite.auth")


async def in_transaction(ctx: AppContext, work: Callable[[AsyncConnection], Awaitable[T]],
                         db_error: str = "Database error querying schema") -> T:
    """Run `work` in one transaction; a database failure rolls back and answers 500 `db_error`."""
    try:
        async with ctx.admin_pool.connection() as conn:
            deferred = None
            async with conn.transaction():
                try:
                    result = await work(conn)
                except CommitThen as commit_then:
                    deferred = commit_then.error
            if deferred is not None:
                raise deferred
            return result
    except psycopg.Error as exc:
        if is_unavailable(exc):
            raise  # answered 503 by the endpoint wrapper
        log.warning("auth: %s: %s", db_error, exc)
        raise internal(db_error) from None
