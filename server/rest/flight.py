"""One flight per transaction: a request's statements sent in libpq pipeline mode.

psycopg's own pipeline flushes after every queued command and polls between them (about
forty system calls per transaction). Here every statement of the transaction (BEGIN,
role + claims, the request's statement, COMMIT) goes out in one write, then the results
come back in one read: the shape PostgREST gives its transactions. Statements the caller
marks as repeated are prepared once per connection (a bounded LRU per connection).

Values are always bound parameters, sent as text of unknown type so PostgreSQL infers
them exactly as psycopg's default string adaptation does.
"""

from __future__ import annotations

import re
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import psycopg
from psycopg import AsyncConnection, pq
from psycopg.errors import error_from_result
from psycopg.waiting import Ready, Wait

_OK = (pq.ExecStatus.TUPLES_OK, pq.ExecStatus.COMMAND_OK, pq.ExecStatus.EMPTY_QUERY)
MAX_PREPARED = 256  # per connection; the oldest is closed beyond that

_PLACEHOLDER = re.compile(rb"%(?:\(([^)]+)\)s|(s)|%)")


@dataclass(frozen=True, slots=True)
class Statement:
    """SQL with $n placeholders, the names bound to them in order (empty when positional),
    and whether to prepare it on each connection."""

    text: bytes
    names: tuple[str, ...] = ()
    prepare: bool = False

    def bind(self, values: Mapping[str, Any] | Sequence[Any]) -> list[bytes | None]:
        """The values as the statement's parameters, in $n order, encoded."""
        if type(values) is dict:
            return [encode(values[n]) for n in self.names]
        return [encode(v) for v in values]


def to_statement(query: bytes | str, prepare: bool = False) -> Statement:
    """Turn psycopg's placeholders (`%(name)s` as composed by psycopg.sql, or `%s`) into `$n`.

    Same grammar as psycopg's own conversion: `%%` is a literal percent sign.
    """
    if isinstance(query, str):
        query = query.encode()
    names: list[str] = []
    index: dict[bytes, int] = {}
    positional = [0]

    def repl(m: re.Match[bytes]) -> bytes:
        name = m.group(1)
        if name is not None:
            if name not in index:
                names.append(name.decode())
                index[name] = len(names)
            return b"$%d" % index[name]
        if m.group(2):
            positional[0] += 1
            return b"$%d" % positional[0]
        return b"%"

    text = _PLACEHOLDER.sub(repl, query)
    if names and positional[0]:
        raise ValueError("a statement mixes named and positional placeholders")
    return Statement(text, tuple(names), prepare)


def encode(value: Any) -> bytes | None:
    """A bound value as PostgreSQL text input."""
    if value is None:
        return None
    if type(value) is str:
        return value.encode()
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, (int, float)):
        return str(value).encode()
    raise TypeError(f"cannot bind a {type(value).__name__} in a flight")


class _Prepared:
    """The statements prepared on each connection: text -> server-side name, in LRU order."""

    def __init__(self) -> None:
        self._by_conn: weakref.WeakKeyDictionary[Any, OrderedDict[bytes, bytes]] = weakref.WeakKeyDictionary()
        self._counter = 0

    def of(self, conn: Any) -> OrderedDict[bytes, bytes]:
        names = self._by_conn.get(conn)
        if names is None:
            names = self._by_conn[conn] = OrderedDict()
        return names

    def new_name(self) -> bytes:
        self._counter += 1
        return b"_slrest_%d" % self._counter


PREPARED = _Prepared()


Step = tuple[Statement, Sequence["bytes | None"]]  # the statement and its encoded parameters


async def run(conn: AsyncConnection, steps: Sequence[Step]) -> list[pq.abc.PGresult]:
    """Send every step and a Sync in one write; return each step's result.

    On the first failing step, raise it as a psycopg error (the server skips the rest of the
    flight until Sync, so the transaction is rolled back, or left failed for the caller to
    roll back when the flight began one with BEGIN).
    """
    results, error = await conn.wait(_flight(conn, steps))
    if error is not None:
        raise error_from_result(error, encoding=conn.info.encoding)
    for res in results:
        if res is None or res.status not in _OK:  # pragma: no cover - aborted without an error
            raise psycopg.InternalError("flight aborted")
    return results


def _flight(conn: AsyncConnection, steps: Sequence[Step]):
    pgconn = conn.pgconn
    known = PREPARED.of(conn)
    # one entry per result the server will send: (kind, payload)
    # kind: "prepare" (name registered on success), "close", "step" (index of the step)
    expected: list[tuple[str, Any]] = []
    pgconn.enter_pipeline_mode()
    try:
        for i, (stmt, params) in enumerate(steps):
            if stmt.prepare:
                name = known.get(stmt.text)
                if name is None:
                    name = PREPARED.new_name()
                    pgconn.send_prepare(name, stmt.text)
                    expected.append(("prepare", (stmt.text, name)))
                    if len(known) >= MAX_PREPARED:
                        _, old = known.popitem(last=False)
                        pgconn.send_close_prepared(old)
                        expected.append(("close", old))
                else:
                    known.move_to_end(stmt.text)
                pgconn.send_query_prepared(name, params)
            else:
                pgconn.send_query_params(stmt.text, params)
            expected.append(("step", i))
        pgconn.pipeline_sync()
        while pgconn.flush():
            yield Wait.RW
            pgconn.consume_input()  # keep reading so the server never blocks on a full socket

        results: list[Any] = [None] * len(steps)
        error: pq.abc.PGresult | None = None
        for kind, payload in expected:
            res = yield from _next_result(pgconn)
            status = res.status
            if status == pq.ExecStatus.FATAL_ERROR and error is None:
                error = res
            if kind == "prepare":
                if status == pq.ExecStatus.COMMAND_OK:
                    known[payload[0]] = payload[1]
            elif kind == "step":
                results[payload] = res
        sync = yield from _next_result(pgconn)
        if sync.status != pq.ExecStatus.PIPELINE_SYNC:  # pragma: no cover - protocol guard
            raise psycopg.InternalError(f"unexpected result in flight: {pq.ExecStatus(sync.status).name}")
    finally:
        if pgconn.pipeline_status:
            try:
                pgconn.exit_pipeline_mode()
            except psycopg.OperationalError:
                pass  # results left unread: the connection is broken and the pool drops it
    return results, error


def _next_result(pgconn: pq.abc.PGconn):
    """The next non-empty result in pipeline mode (libpq returns NULL between commands)."""
    while True:
        while pgconn.is_busy():
            ready = yield Wait.R
            if ready:
                pgconn.consume_input()
        res = pgconn.get_result()
        if res is not None:
            if res.status != pq.ExecStatus.PIPELINE_SYNC:
                # drain the NULL that ends this command's results
                while pgconn.is_busy():
                    ready = yield Wait.R
                    if ready:
                        pgconn.consume_input()
                pgconn.get_result()
            return res


def row(result: pq.abc.PGresult) -> tuple[bytes | None, ...] | None:
    """The first row of a result, as raw bytes per column."""
    if result.ntuples == 0:
        return None
    return tuple(result.get_value(0, c) for c in range(result.nfields))


__all__ = ["Statement", "to_statement", "encode", "run", "row", "PREPARED", "Ready"]
