"""The two caches of the REST hot path.

TokenCache: verifying a JWT (HMAC or signature + claim checks) costs more than the rest of a
cached read; a verified token is kept by its exact string until its `exp`.

PlanCache: a read's SQL depends only on the URL, a few headers and the schema cache, never
on who asks, so the composed statement (with its bound values already encoded) is kept per
(role, method, path, query string, headers that shape the answer). The role is in the key
as a guard only: the statement still runs under the caller's role and claims, and RLS in
PostgreSQL decides what it returns. The cache is emptied whenever the schema cache reloads.

Every cache is bounded in entries and in bytes (an estimate of what an entry holds), since
tokens, URLs and headers come from callers: the oldest entries go first, and an entry too
large for its cache is not kept at all (the request is simply served uncached).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from server.rest.flight import Statement
from server.rest.request import MediaType

# Rough cost in bytes of an entry's Python objects besides its strings (dicts, tuples, ...).
ENTRY_OVERHEAD = 1024


class BoundedStore:
    """A dict bounded in entries and in bytes; the oldest entries are dropped first.

    `get` is a plain dict lookup (the hot path); sizes are only looked at on `put`.
    """

    def __init__(self, max_entries: int, max_bytes: int, on_drop: Callable[[Hashable], None] | None = None) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_bytes // 16
        self.entries: dict[Hashable, Any] = {}
        self._sizes: dict[Hashable, int] = {}
        self.bytes = 0
        self._on_drop = on_drop

    def put(self, key: Hashable, entry: Any, size: int) -> bool:
        """Keep `entry` (False when it alone is too large to be worth keeping)."""
        if size > self.max_entry_bytes:
            return False
        self.pop(key)
        while self.entries and (len(self.entries) >= self.max_entries or self.bytes + size > self.max_bytes):
            self.pop(next(iter(self.entries)))
        self.entries[key] = entry
        self._sizes[key] = size
        self.bytes += size
        return True

    def pop(self, key: Hashable) -> None:
        if key in self.entries:
            del self.entries[key]
            self.bytes -= self._sizes.pop(key)
            if self._on_drop is not None:
                self._on_drop(key)

    def clear(self) -> None:
        self.entries.clear()
        self._sizes.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.entries)


def key_size(key: Hashable) -> int:
    """Bytes held by a cache key: a tuple of strings (and None), or a string."""
    if isinstance(key, str):
        return len(key)
    if isinstance(key, tuple):
        return sum(key_size(k) for k in key) + 8 * len(key)
    return 16


def values_size(values: list[bytes | None]) -> int:
    return sum(len(v) + 40 for v in values if v is not None)


# Headers a read's statement or answer depends on (besides the path and query string).
READ_KEY_HEADERS = ("accept", "prefer", "range", "range-unit", "accept-profile")


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    claims: Mapping[str, Any]
    claims_json: str  # what request.jwt.claims is set to
    role: str
    expires: float | None


class TokenCache:
    """Verified tokens by their string, dropped at `exp`; bounded in entries and bytes."""

    def __init__(self, verify: Callable[[str], dict[str, Any]], max_size: int = 4096,
                 clock: Callable[[], float] = time.time, max_bytes: int = 4 * 1024 * 1024) -> None:
        self._verify = verify
        self._clock = clock
        self._store = BoundedStore(max_size, max_bytes)
        self._tokens = self._store.entries

    def get(self, token: str) -> VerifiedToken:
        """The verified claims of `token`; raises whatever `verify` raises on a bad token."""
        hit = self._tokens.get(token)
        if hit is not None and (hit.expires is None or hit.expires > self._clock()):
            return hit
        claims = self._verify(token)
        found = verified(claims)
        # the token string, the claims' JSON and their dict (about twice the JSON)
        self._store.put(token, found, len(token) + 3 * len(found.claims_json) + ENTRY_OVERHEAD)
        return found

    @property
    def bytes(self) -> int:
        return self._store.bytes

    def __len__(self) -> int:
        return len(self._store)


def verified(claims: Mapping[str, Any]) -> VerifiedToken:
    claims = dict(claims)
    claims.setdefault("role", "anon")
    role = str(claims.get("role") or "anon")
    exp = claims.get("exp")
    expires = float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None
    return VerifiedToken(claims, orjson.dumps(claims).decode(), role, expires)


ANONYMOUS = verified({"role": "anon"})


@dataclass(frozen=True, slots=True)
class CachedRead:
    """Everything a repeated read needs besides the caller: the statement and its answer's shape."""

    schema: str
    statement: Statement
    values: list[bytes | None]
    media: MediaType
    offset: int
    applied: tuple[str, ...]


def read_key(role: str, path: str, query: str, headers: Mapping[str, str]) -> Hashable:
    return (role, path, query, *(headers.get(h) for h in READ_KEY_HEADERS))


class PlanCache:
    """Composed read statements; bounded in entries and bytes, emptied on schema reload."""

    def __init__(self, max_size: int = 2048, max_bytes: int = 8 * 1024 * 1024) -> None:
        self._store = BoundedStore(max_size, max_bytes)
        self._entries = self._store.entries

    def get(self, key: Hashable) -> CachedRead | None:
        return self._entries.get(key)

    def put(self, key: Hashable, entry: CachedRead) -> None:
        size = key_size(key) + len(entry.statement.text) + values_size(entry.values) + ENTRY_OVERHEAD
        self._store.put(key, entry, size)

    def clear(self) -> None:
        self._store.clear()

    @property
    def bytes(self) -> int:
        return self._store.bytes

    def __len__(self) -> int:
        return len(self._store)


# -- writes and calls -------------------------------------------------------------------------

# Headers a write's or an RPC's statement or answer depends on (besides path and query).
CALL_KEY_HEADERS = ("accept", "prefer", "content-type", "content-profile", "accept-profile", "range", "range-unit")
NO_BODY: tuple = ("-",)


def call_key(role: str, method: str, path: str, query: str, headers: Mapping[str, str]) -> Hashable:
    return (role, method, path, query, *(headers.get(h) for h in CALL_KEY_HEADERS))


def body_shape(payload: Any) -> Hashable | None:
    """What of a JSON body shapes the statement: its keys (in order). None: not cacheable.

    The body itself is one bound parameter; only an object, or a non-empty array of objects
    that all have the same keys, is planned the same way for every body of that shape.
    """
    if type(payload) is dict:
        return ("o", tuple(payload))
    if type(payload) is list and payload and all(type(r) is dict for r in payload):
        keys = tuple(payload[0])
        keyset = set(keys)
        if all(len(r) == len(keys) and keyset.issuperset(r) for r in payload[1:]):
            return ("a", keys)
    return None


@dataclass(frozen=True, slots=True)
class CachedCall:
    """A planned write or RPC: the statement, its values (the body's slot filled per request)
    and how to check and answer the result. `check` and `respond` only use what the key
    fixes (method, path, query, headers), never the caller or the body."""

    schema: str
    statement: Statement
    values: list[bytes | None]
    body_slot: int  # index of the body's JSON text in `values`, -1 when the body is not bound
    body_mode: str | None  # "raw": the request body as sent; "dump": the parsed body re-encoded
    read_only: bool
    check: Callable[[Any], bool] | None
    respond: Callable[[Any], Any]


class CallCache:
    """Planned writes and RPCs, by key and body shape; bounded in entries and bytes, emptied
    on schema reload. The stored values never hold a request's body (its slot is blanked)."""

    def __init__(self, max_size: int = 2048, max_bytes: int = 8 * 1024 * 1024) -> None:
        self._store = BoundedStore(max_size, max_bytes, self._dropped)
        self._entries = self._store.entries
        self._keys: dict[Hashable, int] = {}  # key -> how many shapes are planned for it

    def knows(self, key: Hashable) -> bool:
        """A request with this key was planned before (so its body may be parsed first)."""
        return key in self._keys

    def get(self, key: Hashable, shape: Hashable) -> CachedCall | None:
        return self._entries.get((key, shape))

    def put(self, key: Hashable, shape: Hashable, entry: CachedCall) -> None:
        if entry.body_slot >= 0 and entry.values[entry.body_slot] is not None:
            values = list(entry.values)
            values[entry.body_slot] = None  # filled from each request's body
            entry = replace(entry, values=values)
        size = key_size(key) + key_size(shape) + len(entry.statement.text) + values_size(entry.values) + ENTRY_OVERHEAD
        if self._store.put((key, shape), entry, size):
            self._keys[key] = self._keys.get(key, 0) + 1

    def _dropped(self, full_key: Hashable) -> None:
        key = full_key[0]  # type: ignore[index]
        left = self._keys.get(key, 0) - 1
        if left > 0:
            self._keys[key] = left
        else:
            self._keys.pop(key, None)

    def clear(self) -> None:
        self._store.clear()
        self._keys.clear()

    @property
    def bytes(self) -> int:
        return self._store.bytes

    def __len__(self) -> int:
        return len(self._store)
