"""The query-string grammar against a live server: PGRST100 bodies in PostgREST's exact words
(Parsec's positions and `unexpected ... expecting ...`), and what PostgREST's grammar accepts
that a stricter parser would not. Expectations from PostgREST's QueryParams.hs doctests and
its spec (QuerySpec, AndOrParamsSpec, RangeSpec)."""

from __future__ import annotations

from urllib.parse import quote

import pytest


def url(table: str, *params: tuple[str, str]) -> str:
    """A path with its query string percent-encoded as a client sends it."""
    return f"/{table}?" + "&".join(f"{quote(k, safe='')}={quote(v, safe='')}" for k, v in params)


def pgrst100(message: str, details: str) -> dict[str, object]:
    return {"code": "PGRST100", "details": details, "hint": None, "message": message}


PARSE_ERRORS = [
    pytest.param([("id", "val")], pgrst100('"failed to parse filter (val)" (line 1, column 1)',
                                            'unexpected "v" expecting "not" or operator (eq, gt, ...)'), id="filter without operator"),
    pytest.param([("id", "fts().value")], pgrst100('"failed to parse filter (fts().value)" (line 1, column 5)',
                                                    'unexpected ")" expecting operator (eq, gt, ...)'), id="fts without language"),
    pytest.param([("order", "id.ac")], pgrst100('"failed to parse order (id.ac)" (line 1, column 4)',
                                                 'unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"'),
                 id="order direction misspelt"),
    pytest.param([("order", "id.descc")], pgrst100('"failed to parse order (id.descc)" (line 1, column 8)',
                                                    "unexpected 'c' expecting delimiter (.), \",\" or end of input"),
                 id="order direction too long"),
    pytest.param([("or", "(id.eq.1,not.xor(id.eq.2,id.eq.3))")],
                 pgrst100('"failed to parse logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))" (line 1, column 16)',
                          'unexpected "x" expecting logic operator (and, or)'), id="logic operator misspelt"),
    pytest.param([("or", "()")],
                 pgrst100('"failed to parse logic tree (())" (line 1, column 4)',
                          'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)'),
                 id="empty logic tree"),
    pytest.param([("select", "data->>-78xy")],
                 pgrst100('"failed to parse select parameter (data->>-78xy)" (line 1, column 11)',
                          "unexpected 'x' expecting digit, \"->\", \"::\", \".\", \",\" or end of input"), id="bad JSON index"),
    pytest.param([("select", "id,ps_parts(name[])")],
                 pgrst100('"failed to parse select parameter (id,ps_parts(name[]))" (line 1, column 17)',
                          "unexpected '[' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input"),
                 id="brackets in an embed"),
    pytest.param([("select", "prt.*,u.email")],
                 pgrst100('"failed to parse select parameter (prt.*,u.email)" (line 1, column 5)',
                          'unexpected "*" expecting "sum", "avg", "count", "max" or "min"'), id="table-qualified star"),
    pytest.param([("select", "id::")], pgrst100('"failed to parse select parameter (id::)" (line 1, column 5)',
                                                 "unexpected end of input expecting letter or digit"), id="cast without type"),
    pytest.param([("select", "id\t::")], pgrst100('"failed to parse select parameter (id\t::)" (line 1, column 11)',
                                                   "unexpected end of input expecting letter or digit"), id="tabs move to the next stop"),
]


@pytest.mark.parametrize(("params", "body"), PARSE_ERRORS)
def test_pgrst100_bodies_as_postgrest(anon, params: list[tuple[str, str]], body: dict[str, object]) -> None:
    r = anon.get(url("ps_models", *params))
    assert (r.status_code, r.json()) == (400, body)


def ids(r) -> list[int]:
    assert r.status_code == 200, r.text
    return [row["id"] for row in r.json()]


@pytest.mark.parametrize(("params", "expected"), [
    # names with blanks and dashes, as PostgREST's identifiers allow
    ([("select", "id,Just A Server Model"), ("Just A Server Model", "like.*91*"), ("order", "id")], [1, 3]),
    ([("field-with-dash", "gt.15"), ("order", "field-with-dash.desc")], [3, 2]),
    # blanks everywhere in logic trees; the tree ends at its closing parenthesis
    ([("and", "( or ( id.in.( 1, 2 ) , id.eq.3 ) , not.and ( id.eq.2 , id.gt.0 ) )"), ("order", "id")], [1, 3]),
    ([("and", "(id.eq.1,id.neq.2))")], [1]),
    # quotes in lists count only around a whole element
    ([("Just A Server Model", 'in.("Model 1191",Model"2200")')], [1]),
    ([("id", "in.(    )")], []),
    # limit and offset: what is no number is ignored; a negative top-level offset counts from 0
    ([("order", "id"), ("limit", "x")], [1, 2, 3]),
    ([("order", "id"), ("offset", "-4")], [1, 2, 3]),
    ([("order", "id"), ("limit", "2"), ("offset", "-1")], [1]),
])
def test_what_postgrest_accepts(anon, params: list[tuple[str, str]], expected: list[int]) -> None:
    assert ids(anon.get(url("ps_models", *params))) == expected


def test_negative_limit_is_416(anon) -> None:
    r = anon.get(url("ps_models", ("limit", "-1")))
    assert (r.status_code, r.json()) == (416, {"code": "PGRST103", "details": "Limit should be greater than or equal to zero.",
                                               "hint": None, "message": "Requested range not satisfiable"})


@pytest.mark.parametrize(("param", "code", "message"), [("ps_parts.limit", "2201W", "LIMIT must not be negative"),
                                                         ("ps_parts.offset", "2201X", "OFFSET must not be negative")])
def test_negative_embedded_limit_and_offset_reach_postgres(anon, param: str, code: str, message: str) -> None:
    r = anon.get(url("ps_models", ("select", "id,ps_parts(id)"), (param, "-1")))
    assert (r.status_code, r.json()) == (400, {"code": code, "details": None, "hint": None, "message": message})
