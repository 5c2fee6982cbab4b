"""Who calls: the one place a request's headers become a verified caller, for every service.

- The token: `Authorization: Bearer <token>` read as PostgREST (`headerJWT`) and GoTrue
  (`bearerRegexp`) read it: the scheme `Bearer` or `bearer`, one space, the token. Where
  the service accepts it, the `apikey` header stands in when there is no such header, as
  Supabase's gateway does for REST, storage and realtime; GoTrue reads Authorization only.
- The claims' defaults, applied here once: a token without `role` acts as `anon`, and so
  does a request without a token.
- Verified tokens are kept by their exact string until their `exp`, in one cache per set
  of keys that every service of the process shares: verifying a signature costs more than
  the rest of a cached REST read. The cache is bounded in entries and in bytes, since
  callers choose their tokens: the oldest entries go first, and a token too large for it is
  verified each time rather than kept.

Nothing here imports the auth package at run time (it imports this module): keys are used
through `JwtKeys.decode`, whose JwtError passes through unchanged.
"""

from __future__ import annotations

import re
import time
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from server.core.bounded_store import ENTRY_OVERHEAD, BoundedStore

if TYPE_CHECKING:
    from server.core.jwt import JwtKeys

ANON_ROLE = "anon"


@dataclass(frozen=True, slots=True)
class Caller:
    """A verified caller: what the database is told about who asks."""

    role: str  # the database role the request runs as
    claims: Mapping[str, Any]  # the token's claims, `role` defaulted: what request.jwt.claims holds
    claims_json: str  # those claims as JSON
    expires: float | None  # the token's `exp`; None when it has none (or no token)
    role_claimed: bool  # the token itself names a role (Realtime refuses tokens that do not)

    @classmethod
    def of_claims(cls, claims: Mapping[str, Any]) -> Caller:
        """The caller of verified claims: the one place their defaults are applied."""
        role_claimed = "role" in claims
        filled = dict(claims)
        filled.setdefault("role", ANON_ROLE)
        role = str(filled.get("role") or ANON_ROLE)
        exp = filled.get("exp")
        expires = float(exp) if isinstance(exp, (int, float)) and not isinstance(exp, bool) else None
        return cls(role, filled, orjson.dumps(filled).decode(), expires, role_claimed)


ANONYMOUS = Caller.of_claims({})


class MissingToken(Exception):
    """The request carries no token where the service requires one."""


_TOKEN = re.compile(r"\S+")  # what follows `Bearer `: no blank anywhere (GoTrue's `(\S+$)`)


def bearer_token(headers: Mapping[str, str], *, apikey: bool = True) -> str | None:
    """The token a request carries: `Authorization: Bearer`, else (with `apikey`) the apikey header."""
    auth = headers.get("authorization")
    if auth and auth[:7] in ("Bearer ", "bearer ") and _TOKEN.fullmatch(auth, 7):
        return auth[7:]
    if apikey:
        key = headers.get("apikey")
        if key and key.strip():
            return key.strip()
    return None


class TokenCache:
    """Verified callers by token string, dropped at `exp`; bounded in entries and bytes."""

    def __init__(self, verify: Callable[[str], Mapping[str, Any]], max_size: int = 4096,
                 clock: Callable[[], float] = time.time, max_bytes: int = 4 * 1024 * 1024) -> None:
        self._verify = verify
        self._clock = clock
        self._store = BoundedStore(max_size, max_bytes)
        self._entries = self._store.entries

    def get(self, token: str) -> Caller:
        """The verified caller of `token`; raises whatever `verify` raises on a bad token."""
        hit: Caller | None = self._entries.get(token)
        if hit is not None and (hit.expires is None or hit.expires > self._clock()):
            return hit
        found = Caller.of_claims(self._verify(token))
        # the token string, the claims' JSON and their dict (about twice the JSON)
        self._store.put(token, found, len(token) + 3 * len(found.claims_json) + ENTRY_OVERHEAD)
        return found

    @property
    def bytes(self) -> int:
        return self._store.bytes

    def __len__(self) -> int:
        return len(self._store)


# One cache per set of keys (a process has one; tests make several), gone with its keys.
_CACHES: weakref.WeakKeyDictionary[JwtKeys, TokenCache] = weakref.WeakKeyDictionary()


def token_cache(keys: JwtKeys) -> TokenCache:
    """The verified-token cache every service verifying with `keys` shares."""
    cache = _CACHES.get(keys)
    if cache is None:
        cache = _CACHES[keys] = TokenCache(keys.decode)
    return cache


def verified_token(keys: JwtKeys, token: str) -> Caller:
    """The caller of a token (from a header, a websocket message...). Raises JwtError."""
    return token_cache(keys).get(token)


def verified_caller(keys: JwtKeys, headers: Mapping[str, str], *, apikey: bool = True,
                    required: bool = False) -> Caller:
    """The verified caller of a request, from its headers (lower-case names).

    Without a token: anonymous, or MissingToken when `required`. A token that is malformed,
    forged or expired raises JwtError, with its message.
    """
    token = bearer_token(headers, apikey=apikey)
    if token is None:
        if required:
            raise MissingToken
        return ANONYMOUS
    return token_cache(keys).get(token)
