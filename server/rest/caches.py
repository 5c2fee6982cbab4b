"""The statement cache of the REST hot path (verified tokens are cached by server/core/caller.py).

What the plan and compose stages make of a request depends only on its method, path, query
string, a few headers, the shape of its body (its keys) and the schema cache, never on who
asks; so their output (the plan and its prepared statement, values encoded) is kept per
(role, method, path, query string, those headers) and body shape. The role is in the key as
a guard only: the statement still runs under the caller's role and claims, and RLS in
PostgreSQL decides what it returns. The cache is emptied whenever the schema cache reloads.

The cache is bounded in entries and in bytes (server/core/bounded_store.py), since URLs and
headers come from callers.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, replace

from server.core.bounded_store import ENTRY_OVERHEAD, BoundedStore, key_size
from server.rest.api_request.types import ApiRequest
from server.rest.body import dump
from server.rest.flight import Statement, Step, to_statement
from server.rest.plan import CallPlan, MutatePlan, Plan
from server.rest.sql import Query


def values_size(values: list[bytes | None]) -> int:
    return sum(len(v) + 40 for v in values if v is not None)


# -- prepared statements -------------------------------------------------------------------

# Headers a statement or its answer depends on (besides method, path and query string).
KEY_HEADERS = ("accept", "prefer", "content-type", "accept-profile", "content-profile", "range", "range-unit")


def statement_key(role: str, method: str, path: str, query: str, headers: Mapping[str, str]) -> Hashable:
    get = headers.get  # spelled out: this runs on every request
    return (role, method, path, query, get("accept"), get("prefer"), get("content-type"), get("accept-profile"),
            get("content-profile"), get("range"), get("range-unit"))


@dataclass(frozen=True, slots=True)
class Prepared:
    """The output of the plan and compose stages for one request shape: the plan (which the
    response stage reads) and its statement with bound values. When the statement binds the
    request body (`body_slot`), a cached entry holds None there, filled from each request."""

    plan: Plan
    statement: Statement
    values: list[bytes | None]
    body_slot: int  # index of the body's JSON in `values`; -1: the body is not bound
    body_mode: str | None  # "raw": the body as sent; "dump": the parsed body re-encoded
    estimate: Step | None = None  # EXPLAIN of the count query (Prefer: count=planned|estimated)

    def bind(self, request: ApiRequest) -> list[bytes | None]:
        """The values for this request: the body's JSON in its slot."""
        if self.body_slot < 0 or self.values[self.body_slot] is not None:
            return self.values
        values = list(self.values)
        values[self.body_slot] = request.body if self.body_mode == "raw" else dump(request.payload).encode()
        return values


def prepare(plan: Plan, query: Query) -> Prepared:
    """A composed query as a statement prepared once per connection, with its values encoded."""
    statement = to_statement(query.statement.as_bytes(None), prepare=True)
    slot = statement.names.index(query.params.body) if query.params.body is not None else -1
    mode = plan.body_mode if isinstance(plan, (MutatePlan, CallPlan)) else "dump"
    estimate = None
    if query.estimate is not None:
        explain = to_statement(query.estimate.statement.as_bytes(None))
        estimate = (explain, explain.bind(query.estimate.params.values))
    return Prepared(plan, statement, statement.bind(query.params.values), slot, mode, estimate)


class StatementCache:
    """Prepared requests by key and body shape; bounded in entries and bytes, emptied on schema
    reload (plans are made against one schema cache). Never holds a request's body."""

    def __init__(self, max_size: int = 4096, max_bytes: int = 16 * 1024 * 1024) -> None:
        self._store = BoundedStore(max_size, max_bytes)
        self._entries = self._store.entries

    def get(self, key: Hashable, shape: Hashable) -> Prepared | None:
        return self._entries.get((key, shape))

    def put(self, key: Hashable, shape: Hashable, entry: Prepared) -> None:
        if entry.body_slot >= 0:
            values = list(entry.values)
            values[entry.body_slot] = None  # filled from each request's body
            entry = replace(entry, values=values)
        # the key, and the plan, which holds the query string's values parsed (Python objects:
        # about twice the bytes of their text), the statement and its encoded values
        size = 3 * key_size(key) + key_size(shape) + len(entry.statement.text) + values_size(entry.values) + ENTRY_OVERHEAD
        if entry.estimate is not None:  # the count query's EXPLAIN and its values
            size += len(entry.estimate[0].text) + values_size(list(entry.estimate[1]))
        self._store.put((key, shape), entry, size)

    def clear(self) -> None:
        self._store.clear()

    @property
    def bytes(self) -> int:
        return self._store.bytes

    def __len__(self) -> int:
        return len(self._store)
