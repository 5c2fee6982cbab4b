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

import asyncio
import re
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import psycopg
from psycopg import AsyncConnection, pq
from psycopg.errors import error_from_result

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


class Watch(Protocol):
    """How a flight waits on its socket (server.core.pool.Watched watches it all the time)."""

    def readable(self) -> Awaitable[None]: ...

    async def wait_writable(self) -> None: ...

    def detach(self) -> None: ...


async def run(conn: AsyncConnection, steps: Sequence[Step], watch: Watch | None = None,
              prepare: bool = True) -> list[pq.abc.PGresult]:
    """Send every step and a Sync in one write; return each step's result. `prepare=False`
    sends every statement unnamed (the pool is a transaction-mode pooler's).

    On the first failing step, raise it as a psycopg error (the server skips the rest of the
    flight until Sync, so the transaction is rolled back, or left failed for the caller to
    roll back when the flight began one with BEGIN). The connection must be idle and borrowed
    exclusively (from the pool). If the wait is interrupted (cancelled task), the connection
    is closed: its results are still in flight, so the pool must not hand it out again.

    The results are read here rather than in a helper coroutine: this runs once per REST
    request, and every coroutine level costs on each wake-up.
    """
    pgconn = conn.pgconn
    known = PREPARED.of(conn)
    expected = _send(pgconn, steps, known, prepare)
    if watch is None:
        watch = _Socket(pgconn.socket)
    results: list[Any] = [None] * len(steps)
    error = None
    try:
        while pgconn.flush():  # only when the socket buffer was full
            await watch.wait_writable()
            pgconn.consume_input()  # keep reading so the server never blocks on a full socket
        for kind, payload in expected:
            while pgconn.is_busy():
                await watch.readable()
                pgconn.consume_input()
            res = pgconn.get_result()
            while pgconn.is_busy():  # the NULL that ends each command's results
                await watch.readable()
                pgconn.consume_input()
            pgconn.get_result()
            if res is None:  # pragma: no cover - protocol guard
                raise psycopg.InternalError("missing result in flight")
            status = res.status
            if status == _FATAL and error is None:
                error = res
            if kind == _STEP:
                results[payload] = res
            elif kind == _PREPARE and status == _COMMAND_OK:
                known[payload[0]] = payload[1]
        while pgconn.is_busy():
            await watch.readable()
            pgconn.consume_input()
        sync = pgconn.get_result()
        if sync is None or sync.status != _SYNC:  # pragma: no cover - protocol guard
            raise psycopg.InternalError("flight without its sync")
    except BaseException:
        if pgconn.pipeline_status:
            watch.detach()  # before the socket closes: its number may be reused at once
            pgconn.finish()
        raise
    pgconn.exit_pipeline_mode()
    if error is not None:
        raise error_from_result(error, encoding=conn.info.encoding)
    for res in results:
        if res is None or res.status not in _OK:  # pragma: no cover - aborted without an error
            raise psycopg.InternalError("flight aborted")
    return results


# What each result of a flight answers: a step (its index), a prepare (text, name), a close.
_STEP, _PREPARE, _CLOSE = 0, 1, 2


def _send(pgconn: pq.abc.PGconn, steps: Sequence[Step], known: OrderedDict[bytes, bytes],
          prepare: bool) -> list[tuple[int, Any]]:
    expected: list[tuple[int, Any]] = []
    pgconn.enter_pipeline_mode()
    for i, (stmt, params) in enumerate(steps):
        if stmt.prepare and prepare:
            name = known.get(stmt.text)
            if name is None:
                name = PREPARED.new_name()
                pgconn.send_prepare(name, stmt.text)
                expected.append((_PREPARE, (stmt.text, name)))
                if len(known) >= MAX_PREPARED:
                    _, old = known.popitem(last=False)
                    pgconn.send_close_prepared(old)
                    expected.append((_CLOSE, old))
            else:
                known.move_to_end(stmt.text)
            pgconn.send_query_prepared(name, params)
        else:
            pgconn.send_query_params(stmt.text, params)
        expected.append((_STEP, i))
    pgconn.pipeline_sync()  # also flushes: one write for the whole flight
    return expected


_FATAL = pq.ExecStatus.FATAL_ERROR
_COMMAND_OK = pq.ExecStatus.COMMAND_OK
_SYNC = pq.ExecStatus.PIPELINE_SYNC


class _Socket:
    """A Watch for a connection nobody watches: the socket registered for each wait."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def readable(self) -> Awaitable[None]:
        return _ready(self.fd)

    async def wait_writable(self) -> None:
        await _ready(self.fd, write=True)

    def detach(self) -> None:
        pass


async def _ready(fd: int, write: bool = False) -> None:
    """Wait until the socket is readable (or writable): one future, no timer."""
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def wake() -> None:
        if not fut.done():
            fut.set_result(None)

    if write:
        loop.add_writer(fd, wake)
    else:
        loop.add_reader(fd, wake)
    try:
        await fut
    finally:
        if write:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)


def rows(result: pq.abc.PGresult) -> list[tuple[str | None, ...]]:
    """Every row of a result, as text per column (None for NULL)."""
    fields = range(result.nfields)
    get = result.get_value
    out = []
    for r in range(result.ntuples):
        row = []
        for c in fields:
            value = get(r, c)
            row.append(None if value is None else value.decode())
        out.append(tuple(row))
    return out


__all__ = ["PREPARED", "Statement", "Step", "encode", "rows", "run", "to_statement"]
