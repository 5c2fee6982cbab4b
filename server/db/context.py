"""The one place a request transaction is opened with the caller's role and JWT claims.

Exactly as PostgREST and storage-api do: `set_config(..., true)` (transaction-local) of
`role`, `request.jwt.claims`, `request.method`, `request.path` and `request.headers`, so
`auth.uid()`, `auth.role()` and `auth.jwt()` work inside policies and functions; and the
role's own `statement_timeout` (server/db/role_settings.py).
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any
from collections.abc import AsyncIterator, Mapping

import orjson
from psycopg import AsyncConnection
from psycopg_pool import AsyncConnectionPool

from server.db import role_settings

SET_CONTEXT_SQL = (
    "select set_config('role', %s, true), set_config('request.jwt.claims', %s, true),"
    " set_config('request.method', %s, true), set_config('request.path', %s, true),"
    " set_config('request.headers', %s, true), set_config('statement_timeout', %s, true)"
)


@dataclass(frozen=True)
class RequestContext:
    """Who is asking, and about what: the values the database sees for this request."""

    role: str
    claims: Mapping[str, Any]
    method: str = "GET"
    path: str = "/"
    headers: Mapping[str, str] = field(default_factory=dict)

    def params(self) -> list[str | None]:
        claims = dict(self.claims)
        claims.setdefault("role", self.role)
        return [
            self.role,
            orjson.dumps(claims).decode(),
            self.method,
            self.path,
            orjson.dumps(dict(self.headers)).decode(),
            role_settings.statement_timeout(self.role),
        ]


@asynccontextmanager
async def request_transaction(pool: AsyncConnectionPool, ctx: RequestContext) -> AsyncIterator[AsyncConnection]:
    """Borrow a connection, begin, set role and claims; commit on success, roll back on error."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute(SET_CONTEXT_SQL, ctx.params())
        yield conn
