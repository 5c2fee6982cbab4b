"""server/rest/api_request/grammar.py: PostgREST's doctests of its sub-parsers, on ours."""

from __future__ import annotations

import pytest

from server.rest.api_request.types import JsonOp

# -- PostgREST's doctests of its sub-parsers (QueryParams.hs), on ours -----------------------

def _parsec(parser_name: str, text: str) -> object:
    """`P.parse parser "" text` as the doctests print it: the value, or (column, details)."""
    from server.rest import parsec
    from server.rest.api_request import grammar

    ok, value, err = parsec.run(getattr(grammar, parser_name), text)
    return value if ok else (parsec.line_column(text, err.pos)[1], parsec.describe(err))


@pytest.mark.parametrize(("parser", "text", "expected"), [
    ("_field_name", "identifier with spaces", "identifier with spaces"),
    ("_field_name", "identifier-with-dashes", "identifier-with-dashes"),
    ("_field_name", " no leading or trailing spaces ", "no leading or trailing spaces"),
    ("_field_name", '" leading and trailing spaces "', " leading and trailing spaces "),
    ("_field_name", '":"', ":"),
    ("_field_name", ":", (1, 'unexpected ":" expecting field name (* or [a..z0..9_$])')),
    ("_json_path", "->>--34", (5, 'unexpected "-" expecting digit')),
    ("_json_path", "->>-xy-4", (5, 'unexpected "x" expecting digit')),
    ("_json_path", "->>-78xy", (7, "unexpected 'x' expecting digit, \"->\", \"::\", \".\", \",\" or end of input")),
    ("_field_select", "name!hint", (5, "unexpected '!' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" "
                                       "or end of input")),
    ("_field_select", "*!hint", (2, "unexpected '!' expecting \")\", \",\" or end of input")),
    ("_field_select", "name::", (7, "unexpected end of input expecting letter or digit")),
    ("_relation", "rel->jsonpath(*)", (6, "unexpected '>'")),
    ("_relation", "rel->jsonpath!hint(*)", (6, "unexpected '>'")),
    ("_spread", "rel(*)", (1, 'unexpected "r" expecting "..."')),
    ("_spread", "alias:...rel(*)", (1, 'unexpected "a" expecting "..."')),
    ("_spread", "...rel->jsonpath(*)", (9, "unexpected '>'")),
    ("_logic_tree", "or)(", (3, 'unexpected ")" expecting "("')),
])
def test_postgrest_doctests(parser: str, text: str, expected: object) -> None:
    assert _parsec(parser, text) == expected


def test_json_keys_and_indexes() -> None:
    assert _parsec("_json_path", "->!@#$%^&*_a") == (JsonOp("->", "!@#$%^&*_a"),)
    assert _parsec("_json_path", "->0,other") == (JsonOp("->", "0", True),)
    assert _parsec("_json_path", "->>1") == (JsonOp("->>", "1", True),)
    assert _parsec("_json_path", "->1x") == (JsonOp("->", "1x"),)  # not an index: a key
