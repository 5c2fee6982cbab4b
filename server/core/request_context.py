"""The one place a request transaction is opened with the caller's role and JWT claims.

Exactly as PostgREST and storage-api do: `set_config(..., true)` (transaction-local) of
`role`, `request.jwt.claims`, `request.method`, `request.path` and `request.headers`, so
`auth.uid()`, `auth.role()` and `auth.jwt()` work inside policies and functions; and the
role's own `statement_timeout` (server/core/role_settings.py). Every service builds its
statement here: auth and storage through request_transaction, REST with its search_path,
realtime with the channel's topic (realtime.topic), the policy matrix with its personas.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
from psycopg import AsyncConnection

from server.core import role_settings
from server.core.pool import Pool

if TYPE_CHECKING:
    from server.core.caller import Caller


def context_sql(*extra: str, request: bool = True) -> str:
    """The one statement that sets a caller's context: role, claims, (method, path,) headers,
    the role's statement_timeout, then the `extra` settings, each transaction-local.

    Its parameters are RequestContext.params(request=...) followed by the extra values.
    """
    names = ["role", "request.jwt.claims", *(("request.method", "request.path") if request else ()),
             "request.headers", "statement_timeout", *extra]
    return "select " + ", ".join(f"set_config('{name}', %s, true)" for name in names)


SET_CONTEXT_SQL = context_sql()


@dataclass(frozen=True)
class RequestContext:
    """Who is asking, and about what: the values the database sees for this request."""

    role: str
    claims: Mapping[str, Any]
    method: str = "GET"
    path: str = "/"
    headers: Mapping[str, str] = field(default_factory=dict)
    claims_json: str | None = None  # the claims as JSON, when the caller has them already

    @classmethod
    def of(cls, caller: Caller, method: str = "GET", path: str = "/",
           headers: Mapping[str, str] | None = None) -> RequestContext:
        """The context of a verified caller (server/core/caller.py) asking `method path`."""
        return cls(caller.role, caller.claims, method, path, headers or {}, caller.claims_json)

    def params(self, *, request: bool = True) -> list[str | None]:
        """The values of context_sql(request=request), without its extra settings."""
        claims_json = self.claims_json
        if claims_json is None:
            claims = dict(self.claims)
            claims.setdefault("role", self.role)
            claims_json = orjson.dumps(claims).decode()
        return [
            self.role,
            claims_json,
            *((self.method, self.path) if request else ()),
            orjson.dumps(dict(self.headers)).decode(),
            role_settings.statement_timeout(self.role),
        ]


@asynccontextmanager
async def request_transaction(pool: Pool, ctx: RequestContext) -> AsyncIterator[AsyncConnection]:
    """Borrow a connection, begin, set role and claims; commit on success, roll back on error."""
    async with pool.connection() as conn, conn.transaction():
        await conn.execute(SET_CONTEXT_SQL, ctx.params())
        yield conn
