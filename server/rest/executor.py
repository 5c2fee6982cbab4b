"""Run one composed statement as one transaction, in one flight (PostgREST's Query.hs).

BEGIN, the caller's context (role, claims, method, path, headers, statement_timeout,
search_path), the statement and COMMIT go out in one write and come back in one read.
A transaction whose result may turn it down (max-affected, a singular answer, tx=rollback,
EXPLAIN) waits for the result before its COMMIT or ROLLBACK.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import psycopg
from psycopg import pq
from psycopg_pool import PoolTimeout

from server.core.health import DatabaseUnavailable, is_unavailable
from server.core.pool import Pool, Watched
from server.core.request_context import RequestContext, context_sql
from server.rest import errors, flight
from server.rest.plan.tx import Tx

# The caller's context and the schema's search_path (PostgREST's db-extra-search-path).
CONTEXT = flight.to_statement(context_sql("search_path"), prepare=True)
BEGIN_READ = flight.to_statement(b"BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY", prepare=True)
BEGIN_WRITE = flight.to_statement(b"BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE", prepare=True)
COMMIT = flight.to_statement(b"COMMIT", prepare=True)
ROLLBACK = flight.to_statement(b"ROLLBACK", prepare=True)

Values = Sequence[bytes | None]


@dataclass(frozen=True, slots=True)
class Result:
    """The statement's rows as text. Every statement but EXPLAIN answers one row: total,
    page_total, body, the response.headers and response.status settings, then (upserts
    only) the rows inserted."""

    rows: list[tuple[str | None, ...]]
    estimate: list[tuple[str | None, ...]] | None = None  # the count query's EXPLAIN, when asked

    @property
    def total(self) -> int | None:
        value = self.rows[0][0] if self.rows else None
        return None if value is None else int(value)

    @property
    def page_total(self) -> int:
        return int(self.rows[0][1] or 0) if self.rows else 0

    @property
    def body(self) -> str:
        return (self.rows[0][2] or "[]") if self.rows else "[]"

    @property
    def headers_setting(self) -> str | None:
        return self.rows[0][3] if self.rows else None

    @property
    def status_setting(self) -> str | None:
        return self.rows[0][4] if self.rows else None

    @property
    def inserted(self) -> int | None:
        """The rows an upsert inserted (pgrst.inserted, counted by the statement)."""
        value = self.rows[0][5] if self.rows and len(self.rows[0]) > 5 else None
        return None if value is None else int(value)


def verdict(tx: Tx, result: Result) -> bool:
    """Commit (True) or roll back (False); max-affected and singularity refuse the request."""
    if tx.max_affected is not None and result.page_total > tx.max_affected:
        raise errors.max_affected_violation(result.page_total)
    if tx.singular and result.page_total != 1:
        raise errors.singularity_error(result.page_total)
    return not tx.rollback


class Executor:
    def __init__(self, pool: Pool, search_paths: dict[str, str], prepare: bool = True) -> None:
        self.pool = pool
        self.search_paths = search_paths  # schema -> its search_path
        # PGRST_DB_PREPARED_STATEMENTS: off behind a transaction-mode pooler, where the next
        # transaction may run on a server connection that never saw the statement prepared.
        self.prepare = prepare

    async def run(self, ctx: RequestContext, schema: str, statement: flight.Statement, values: Values,
                  tx: Tx, estimate: flight.Step | None = None) -> Result:
        """The statement's result, committed or rolled back as `tx` says; errors as PostgREST's.
        An `estimate` step (EXPLAIN of a count query) runs after it in the same transaction."""
        context = CONTEXT.bind([*ctx.params(), self.search_paths[schema]])
        steps: list[flight.Step] = [(BEGIN_READ if tx.read_only else BEGIN_WRITE, ()), (CONTEXT, context),
                                    (statement, values)]
        if estimate is not None:
            steps.append(estimate)
        if not tx.decided_by_result:
            steps.append((COMMIT, ()))
        try:
            # The statement names the request's kind (the same whatever values it binds):
            # one the pool saw hold its connection long stays out of the quick requests' reserve.
            lease = await self.pool.acquire(shape=statement.text)
            try:
                conn = lease.conn
                try:  # the flight awaited here, not in a helper: one coroutine level less per request
                    results = await flight.run(conn, steps, lease, self.prepare)
                    result = Result(flight.rows(results[2]), flight.rows(results[3]) if estimate is not None else None)
                    if tx.decided_by_result:
                        await self._decide(lease, tx, result)
                    return result
                except psycopg.Error:
                    if not conn.closed and conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
                        await flight.run(conn, [(ROLLBACK, ())], lease, self.prepare)
                    raise
            finally:
                await self.pool.release(lease)
        except psycopg.errors.Error as exc:
            if is_unavailable(exc):
                raise errors.connection_error() from None
            raise errors.from_pg_error(exc, authed=ctx.role != "anon") from None
        except DatabaseUnavailable:
            raise errors.connection_error() from None
        except PoolTimeout:
            raise errors.pool_timeout() from None

    async def _decide(self, lease: Watched, tx: Tx, result: Result) -> None:
        """Commit or roll back the transaction its result decides (verdict)."""
        try:
            commit = verdict(tx, result)
        except errors.ApiError:
            await flight.run(lease.conn, [(ROLLBACK, ())], lease, self.prepare)
            raise
        await flight.run(lease.conn, [(COMMIT if commit else ROLLBACK, ())], lease, self.prepare)
