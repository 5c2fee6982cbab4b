"""TokenCache (verified JWTs by string until exp) and PlanCache (reads by URL + headers + role)."""

from __future__ import annotations

import pytest

from server.auth.jwt import JwtError, JwtKeys, keys_from_settings
from server.rest import flight
from server.rest.caches import READ_KEY_HEADERS, CachedRead, PlanCache, TokenCache, read_key
from server.rest.request import parse_accept
from tests import harness


@pytest.fixture
def keys() -> JwtKeys:
    return keys_from_settings(harness.base_settings("postgresql://unused/db"))


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def counting(keys: JwtKeys) -> tuple[list[str], object]:
    seen: list[str] = []

    def verify(token: str) -> dict:
        seen.append(token)
        return keys.decode(token)

    return seen, verify


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


def entry(schema: str = "public") -> CachedRead:
    stmt = flight.to_statement(b"select %(p0)s", prepare=True)
    return CachedRead(schema, stmt, stmt.bind({"p0": "1"}), parse_accept(None, False), 0, ())


def test_read_key_separates_roles_and_every_shaping_header() -> None:
    base = {"accept": "application/json"}
    key = read_key("anon", "/fx_books", "select=id", base)
    assert key != read_key("authenticated", "/fx_books", "select=id", base)
    assert key != read_key("anon", "/fx_books", "select=title", base)
    assert key != read_key("anon", "/fx_authors", "select=id", base)
    for header in READ_KEY_HEADERS:
        assert read_key("anon", "/fx_books", "select=id", {**base, header: "x"}) != key, header
    # headers that do not shape the statement share the entry
    assert read_key("anon", "/fx_books", "select=id", {**base, "user-agent": "y"}) == key


def test_plan_cache_clear_and_bound() -> None:
    cache = PlanCache(max_size=2)
    cache.put("a", entry())
    assert cache.get("a") is not None and cache.get("b") is None
    cache.clear()
    assert cache.get("a") is None
    for k in ("a", "b", "c"):
        cache.put(k, entry())
    assert len(cache) <= 2 and cache.get("c") is not None


def test_body_shape() -> None:
    from server.rest.caches import body_shape

    assert body_shape({"a": 1, "b": 2}) == ("o", ("a", "b"))
    assert body_shape({"b": 2, "a": 1}) != body_shape({"a": 1, "b": 2})  # column order follows the keys
    assert body_shape([{"a": 1, "b": 2}, {"b": 3, "a": 4}]) == ("a", ("a", "b"))
    assert body_shape([{"a": 1}, {"a": 1, "b": 2}]) is None  # keys differ: the full path answers 400
    assert body_shape([{"a": 1, "b": 2}, {"a": 1, "c": 2}]) is None
    assert body_shape([]) is None and body_shape([1, 2]) is None and body_shape("x") is None


def test_call_cache_keys_and_shapes() -> None:
    from server.rest.caches import NO_BODY, CachedCall, CallCache, call_key

    stmt = flight.to_statement(b"select 1", prepare=True)
    entry = CachedCall("public", stmt, [], -1, None, False, None, lambda row: row)
    key = call_key("authenticated", "POST", "/fx_notes", "", {"content-type": "application/json"})
    assert key != call_key("anon", "POST", "/fx_notes", "", {"content-type": "application/json"})
    assert key != call_key("authenticated", "PATCH", "/fx_notes", "", {"content-type": "application/json"})
    assert key != call_key("authenticated", "POST", "/fx_notes", "", {"content-type": "text/csv"})
    cache = CallCache(max_size=2)
    assert not cache.knows(key)
    cache.put(key, ("o", ("body",)), entry)
    assert cache.knows(key) and cache.get(key, ("o", ("body",))) is entry and cache.get(key, NO_BODY) is None
    cache.clear()
    assert not cache.knows(key) and len(cache) == 0


# -- byte budgets: callers choose tokens, URLs and headers --------------------------------

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


def big_entry(size: int) -> CachedRead:
    stmt = flight.to_statement(b"select %(p0)s", prepare=True)
    return CachedRead("public", stmt, stmt.bind({"p0": "v" * size}), parse_accept(None, False), 0, ())


def test_plan_cache_is_bounded_in_bytes() -> None:
    cache = PlanCache(max_bytes=1024 * 1024)
    for i in range(300):
        cache.put(("anon", "/t", "q" * 10_000 + str(i)), big_entry(10_000))
    assert cache.bytes <= 1024 * 1024 and 0 < len(cache) < 300
    assert cache.get(("anon", "/t", "q" * 10_000 + "299")) is not None
    assert cache.get(("anon", "/t", "q" * 10_000 + "0")) is None
    cache.put("huge", big_entry(200_000))  # more than a sixteenth of the budget: not kept
    assert cache.get("huge") is None
    cache.clear()
    assert cache.bytes == 0 and len(cache) == 0


def test_call_cache_is_bounded_in_bytes_and_never_holds_a_body() -> None:
    from server.rest.caches import CachedCall, CallCache

    stmt = flight.to_statement(b"insert into t select * from json_populate_recordset(null::t, %(body)s)", prepare=True)
    cache = CallCache(max_bytes=512 * 1024)
    for i in range(200):
        values = stmt.bind({"body": "b" * 50_000})
        cache.put(("k", "q" * 5_000 + str(i)), ("o", ("a",)), CachedCall("public", stmt, values, 0, "raw", False, None, lambda r: r))
    assert cache.bytes <= 512 * 1024 and 0 < len(cache) < 200
    newest = cache.get(("k", "q" * 5_000 + "199"), ("o", ("a",)))
    assert newest is not None and newest.values[0] is None  # filled from each request's body
    assert cache.knows(("k", "q" * 5_000 + "199")) and not cache.knows(("k", "q" * 5_000 + "0"))
