"""The two caches of the REST hot path.

TokenCache: verifying a JWT (HMAC or signature + claim checks) costs more than the rest of a
cached read; a verified token is kept by its exact string until its `exp`.

PlanCache: a read's SQL depends only on the URL, a few headers and the schema cache, never
on who asks, so the composed statement (with its bound values already encoded) is kept per
(role, method, path, query string, headers that shape the answer). The role is in the key
as a guard only: the statement still runs under the caller's role and claims, and RLS in
PostgreSQL decides what it returns. The cache is emptied whenever the schema cache reloads.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Mapping

import orjson

from server.rest.flight import Statement
from server.rest.request import MediaType

# Headers a read's statement or answer depends on (besides the path and query string).
READ_KEY_HEADERS = ("accept", "prefer", "range", "range-unit", "accept-profile")


@dataclass(frozen=True, slots=True)
class VerifiedToken:
    claims: Mapping[str, Any]
    claims_json: str  # what request.jwt.claims is set to
    role: str
    expires: float | None


class TokenCache:
    """Verified tokens by their string, dropped at `exp`; bounded (emptied when full)."""

    def __init__(self, verify: Callable[[str], dict[str, Any]], max_size: int = 4096,
                 clock: Callable[[], float] = time.time) -> None:
        self._verify = verify
        self._max = max_size
        self._clock = clock
        self._tokens: dict[str, VerifiedToken] = {}

    def get(self, token: str) -> VerifiedToken:
        """The verified claims of `token`; raises whatever `verify` raises on a bad token."""
        hit = self._tokens.get(token)
        if hit is not None and (hit.expires is None or hit.expires > self._clock()):
            return hit
        claims = self._verify(token)
        found = verified(claims)
        if len(self._tokens) >= self._max:
            self._tokens.clear()
        self._tokens[token] = found
        return found

    def __len__(self) -> int:
        return len(self._tokens)


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
    """Composed read statements; bounded (emptied when full), emptied on schema reload."""

    def __init__(self, max_size: int = 2048) -> None:
        self._max = max_size
        self._entries: dict[Hashable, CachedRead] = {}

    def get(self, key: Hashable) -> CachedRead | None:
        return self._entries.get(key)

    def put(self, key: Hashable, entry: CachedRead) -> None:
        if len(self._entries) >= self._max:
            self._entries.clear()
        self._entries[key] = entry

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


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
    """Planned writes and RPCs, by key and body shape; bounded, emptied on schema reload."""

    def __init__(self, max_size: int = 2048) -> None:
        self._max = max_size
        self._entries: dict[tuple[Hashable, Hashable], CachedCall] = {}
        self._keys: set[Hashable] = set()

    def knows(self, key: Hashable) -> bool:
        """A request with this key was planned before (so its body may be parsed first)."""
        return key in self._keys

    def get(self, key: Hashable, shape: Hashable) -> CachedCall | None:
        return self._entries.get((key, shape))

    def put(self, key: Hashable, shape: Hashable, entry: CachedCall) -> None:
        if len(self._entries) >= self._max:
            self.clear()
        self._entries[(key, shape)] = entry
        self._keys.add(key)

    def clear(self) -> None:
        self._entries.clear()
        self._keys.clear()

    def __len__(self) -> int:
        return len(self._entries)
