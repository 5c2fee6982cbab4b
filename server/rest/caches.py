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
