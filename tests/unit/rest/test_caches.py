"""StatementCache: plans and their statements by request shape, bounded in entries and bytes."""

from __future__ import annotations

from server.rest import flight
from server.rest.api_request.payload import NO_BODY, body_shape
from server.rest.caches import KEY_HEADERS, Prepared, StatementCache, statement_key


def prepared(text: bytes = b"select %(p0)s", value: str = "1", body_slot: int = -1) -> Prepared:
    """A cache entry; the plan is never looked at by the cache."""
    stmt = flight.to_statement(text, prepare=True)
    return Prepared(None, stmt, stmt.bind({"p0": value}), body_slot, "raw")  # type: ignore[arg-type]


def test_statement_key_separates_roles_methods_and_every_shaping_header() -> None:
    base = {"accept": "application/json"}
    key = statement_key("anon", "GET", "/fx_books", "select=id", base)
    assert key != statement_key("authenticated", "GET", "/fx_books", "select=id", base)
    assert key != statement_key("anon", "HEAD", "/fx_books", "select=id", base)
    assert key != statement_key("anon", "GET", "/fx_books", "select=title", base)
    assert key != statement_key("anon", "GET", "/fx_authors", "select=id", base)
    for header in KEY_HEADERS:
        assert statement_key("anon", "GET", "/fx_books", "select=id", {**base, header: "x"}) != key, header
    # headers that do not shape the statement share the entry
    assert statement_key("anon", "GET", "/fx_books", "select=id", {**base, "user-agent": "y"}) == key


def test_statement_cache_by_key_and_body_shape_clear_and_bound() -> None:
    cache = StatementCache(max_size=2)
    cache.put("a", NO_BODY, prepared())
    assert cache.get("a", NO_BODY) is not None and cache.get("a", ("o", ("x",))) is None and cache.get("b", NO_BODY) is None
    cache.clear()
    assert cache.get("a", NO_BODY) is None
    for k in ("a", "b", "c"):
        cache.put(k, NO_BODY, prepared())
    assert len(cache) <= 2 and cache.get("c", NO_BODY) is not None


def test_body_shape() -> None:
    assert body_shape({"a": 1, "b": 2}) == ("o", ("a", "b"))
    assert body_shape({"b": 2, "a": 1}) != body_shape({"a": 1, "b": 2})  # column order follows the keys
    assert body_shape([{"a": 1, "b": 2}, {"b": 3, "a": 4}]) == ("a", ("a", "b"))
    assert body_shape([{"a": 1}, {"a": 1, "b": 2}]) is None  # keys differ: the full path answers 400
    assert body_shape([{"a": 1, "b": 2}, {"a": 1, "c": 2}]) is None
    assert body_shape([]) is None and body_shape([1, 2]) is None and body_shape("x") is None


# -- byte budgets: callers choose URLs and headers -----------------------------------------

def test_statement_cache_is_bounded_in_bytes() -> None:
    cache = StatementCache(max_bytes=1024 * 1024)
    for i in range(300):
        cache.put(("anon", "/t", "q" * 10_000 + str(i)), NO_BODY, prepared(value="v" * 10_000))
    assert cache.bytes <= 1024 * 1024 and 0 < len(cache) < 300
    assert cache.get(("anon", "/t", "q" * 10_000 + "299"), NO_BODY) is not None
    assert cache.get(("anon", "/t", "q" * 10_000 + "0"), NO_BODY) is None
    cache.put("huge", NO_BODY, prepared(value="v" * 200_000))  # more than a sixteenth of the budget: not kept
    assert cache.get("huge", NO_BODY) is None
    cache.clear()
    assert cache.bytes == 0 and len(cache) == 0


def test_statement_cache_never_holds_a_body() -> None:
    text = b"insert into t select * from json_populate_recordset(null::t, %(p0)s)"
    cache = StatementCache(max_bytes=512 * 1024)
    for i in range(200):
        cache.put(("k", "q" * 5_000 + str(i)), ("o", ("a",)), prepared(text, "b" * 50_000, body_slot=0))
    assert cache.bytes <= 512 * 1024 and 0 < len(cache) < 200
    newest = cache.get(("k", "q" * 5_000 + "199"), ("o", ("a",)))
    assert newest is not None and newest.values[0] is None  # filled from each request's body
