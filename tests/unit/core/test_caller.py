"""server/core/caller.py: the token a request carries, the claims' defaults, and the verified-token
cache every service shares (verified once by string until exp, bounded in entries and bytes)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

import jwt as pyjwt
import pytest

from server.core.caller import (
    ANONYMOUS,
    Caller,
    MissingToken,
    TokenCache,
    bearer_token,
    token_cache,
    verified_caller,
    verified_token,
)
from server.core.jwt import JwtError, JwtKeys
from server.core.request_context import RequestContext


@pytest.fixture
def keys() -> JwtKeys:
    return JwtKeys("s" * 40)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def counting(keys: JwtKeys) -> tuple[list[str], Callable[[str], Mapping[str, Any]]]:
    seen: list[str] = []

    def verify(token: str) -> Mapping[str, Any]:
        seen.append(token)
        return keys.decode(token)

    return seen, verify


# -- the token a request carries ------------------------------------------------------------

@pytest.mark.parametrize(("header", "token"), [
    ("Bearer abc.def.ghi", "abc.def.ghi"),
    ("bearer abc.def.ghi", "abc.def.ghi"),  # PostgREST and GoTrue take both spellings
    ("BEARER abc.def.ghi", None),  # and no other
    ("Bearer  abc", None),  # one space, then the token
    ("Bearer abc def", None),
    ("Bearer ", None),
    ("Basic dXNlcjpwYXNz", None),
    ("", None),
])
def test_the_authorization_header_is_read_as_gotrue_and_postgrest_read_it(header: str, token: str | None) -> None:
    assert bearer_token({"authorization": header}, apikey=False) == token


def test_apikey_stands_in_only_where_accepted_and_only_without_a_bearer_token() -> None:
    assert bearer_token({"apikey": "key"}) == "key"
    assert bearer_token({"apikey": "key"}, apikey=False) is None
    assert bearer_token({"authorization": "Bearer user", "apikey": "key"}) == "user"
    assert bearer_token({"authorization": "Basic x", "apikey": "key"}) == "key"
    assert bearer_token({"apikey": "  "}) is None and bearer_token({}) is None


def test_no_token_is_anonymous_or_missing_where_required(keys: JwtKeys) -> None:
    assert verified_caller(keys, {}) is ANONYMOUS
    assert ANONYMOUS.role == "anon" and ANONYMOUS.claims == {"role": "anon"} and ANONYMOUS.expires is None
    with pytest.raises(MissingToken):
        verified_caller(keys, {"apikey": keys.sign({"role": "anon"})}, apikey=False, required=True)


def test_bearer_wins_over_apikey(keys: JwtKeys) -> None:
    user = keys.sign({"sub": "u1", "role": "authenticated", "exp": int(time.time()) + 60})
    caller = verified_caller(keys, {"authorization": f"Bearer {user}", "apikey": keys.sign({"role": "anon"})})
    assert caller.claims["sub"] == "u1" and caller.role == "authenticated"


@pytest.mark.parametrize("token", [
    "garbage",
    pyjwt.encode({"role": "service_role"}, "wrong-secret-wrong-secret-wrong-secret", algorithm="HS256"),
    pyjwt.encode({"role": "service_role"}, None, algorithm="none"),
    pyjwt.encode({"role": "authenticated", "exp": int(time.time()) - 10}, "s" * 40, algorithm="HS256"),
])
def test_forged_expired_and_garbage_tokens_are_refused(keys: JwtKeys, token: str) -> None:
    with pytest.raises(JwtError):
        verified_caller(keys, {"authorization": f"Bearer {token}"})


# -- the claims' defaults -------------------------------------------------------------------

def test_defaults_are_applied_once() -> None:
    caller = Caller.of_claims({"sub": "u1", "exp": 4_000_000_000})
    assert caller.role == "anon" and caller.claims["role"] == "anon" and not caller.role_claimed
    assert caller.claims_json == '{"sub":"u1","exp":4000000000,"role":"anon"}' and caller.expires == 4_000_000_000
    named = Caller.of_claims({"role": "authenticated", "exp": True})
    assert named.role_claimed and named.role == "authenticated" and named.expires is None


def test_request_context_of_a_caller(keys: JwtKeys) -> None:
    caller = verified_token(keys, keys.sign({"sub": "u1", "role": "authenticated"}))
    ctx = RequestContext.of(caller, "POST", "/object/b/a", {"x-client-info": "t"})
    assert (ctx.role, ctx.method, ctx.path, ctx.headers) == ("authenticated", "POST", "/object/b/a", {"x-client-info": "t"})
    assert ctx.params()[1] == caller.claims_json


# -- the shared cache -----------------------------------------------------------------------

def test_one_cache_per_set_of_keys_shared_by_every_caller(keys: JwtKeys) -> None:
    token = keys.sign({"sub": "u1", "role": "authenticated", "exp": 4_000_000_000})
    assert token_cache(keys) is token_cache(keys) and token_cache(keys) is not token_cache(JwtKeys("s" * 40))
    first = verified_caller(keys, {"authorization": f"Bearer {token}"})
    assert verified_token(keys, token) is first  # the same entry, whichever service asked
    with pytest.raises(JwtError):
        verified_token(JwtKeys("t" * 40), token)  # other keys do not see it


def test_token_verified_once(keys: JwtKeys) -> None:
    seen, verify = counting(keys)
    cache = TokenCache(verify, clock=Clock(100.0))
    token = keys.sign({"sub": "u1", "role": "authenticated", "exp": 4_000_000_000})
    first = cache.get(token)
    assert cache.get(token) is first and seen == [token]
    assert first.role == "authenticated" and first.claims["sub"] == "u1"
    assert first.expires == 4_000_000_000


def test_expired_entry_is_not_served(keys: JwtKeys) -> None:
    clock = Clock(100.0)
    seen, verify = counting(keys)
    cache = TokenCache(verify, clock=clock)
    token = keys.sign({"sub": "u1", "role": "authenticated", "exp": 4_000_000_000})
    cache.get(token)
    clock.now = 4_000_000_000.0
    cache.get(token)
    assert seen == [token, token]


def test_bad_tokens_are_not_cached(keys: JwtKeys) -> None:
    seen, verify = counting(keys)
    cache = TokenCache(verify)
    for _ in range(2):
        with pytest.raises(JwtError):
            cache.get("not-a-jwt")
    assert seen == ["not-a-jwt", "not-a-jwt"] and len(cache) == 0


def test_token_role_defaults_to_anon_and_cache_is_bounded(keys: JwtKeys) -> None:
    cache = TokenCache(keys.decode, max_size=2)
    tokens = [keys.sign({"sub": f"u{i}", "exp": 4_000_000_000}) for i in range(3)]
    assert cache.get(tokens[0]).role == "anon" and cache.get(tokens[0]).claims["role"] == "anon"
    for t in tokens:
        cache.get(t)
    assert len(cache) <= 2


def test_token_cache_is_bounded_in_bytes_oldest_first(keys: JwtKeys) -> None:
    seen, verify = counting(keys)
    cache = TokenCache(verify, max_bytes=256 * 1024)
    tokens = [keys.sign({"sub": f"u{i}", "role": "authenticated", "pad": "x" * 2000, "exp": 4_000_000_000})
              for i in range(200)]
    for t in tokens:
        cache.get(t)
    assert cache.bytes <= 256 * 1024 and 0 < len(cache) < 200
    seen.clear()
    cache.get(tokens[-1])  # the newest are kept
    cache.get(tokens[0])  # the oldest went first
    assert seen == [tokens[0]]


def test_token_too_large_for_the_cache_is_verified_each_time(keys: JwtKeys) -> None:
    seen, verify = counting(keys)
    cache = TokenCache(verify, max_bytes=64 * 1024)
    token = keys.sign({"sub": "u", "pad": "x" * 20_000, "exp": 4_000_000_000})
    assert cache.get(token).claims["sub"] == cache.get(token).claims["sub"] == "u"
    assert len(seen) == 2 and len(cache) == 0 and cache.bytes == 0
