"""server/rest/api_request/bounds.py: hostile nesting and numbers are 4xx, never a crash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rest import errors
from server.rest.api_request.bounds import MAX_BIGINT, MAX_JSON_PATH, MAX_NESTING, bounded_int
from server.rest.api_request.preferences import parse_prefer, parse_range
from server.rest.api_request.query_params import parse_query, parse_select

# -- bounds: nesting depth and numbers (hostile URLs are 4xx, never a crash) ---------------

def test_nesting_is_bounded() -> None:
    parse_query("or=(" + "or(" * (MAX_NESTING - 1) + "a.eq.1" + ")" * MAX_NESTING)
    parse_select("a(" * MAX_NESTING + "b" + ")" * MAX_NESTING)
    parse_query("a" + "->b" * MAX_JSON_PATH + "=eq.1")
    for query in ("or=(" + "and(" * MAX_NESTING + "a.eq.1" + ")" * (MAX_NESTING + 1),
                  "or=(" + "or(" * 5000 + "a.eq.1" + ")" * 5001,
                  "select=" + "a(" * (MAX_NESTING + 1) + "b" + ")" * (MAX_NESTING + 1),
                  "select=" + "a(" * 5000 + "b" + ")" * 5000,
                  "a" + "->b" * (MAX_JSON_PATH + 1) + "=eq.1",
                  "select=a" + "->>b" * 5000):
        with pytest.raises(errors.ApiError) as exc:
            parse_query(query)
        assert exc.value.status == 400 and exc.value.code == "PGRST100"


def test_numbers_are_bounded() -> None:
    assert parse_query(f"limit={MAX_BIGINT}&a.offset=007").limit[()] == MAX_BIGINT
    assert parse_query("a.offset=007").offset[("a",)] == 7
    for query in (f"limit={MAX_BIGINT + 1}", "offset=" + "9" * 5000, "a.b.limit=" + "1" * 25, "a->" + "9" * 5000 + "=eq.1",
                  "a->2147483648=eq.1", f"limit=-{MAX_BIGINT + 1}", "limit=0x" + "f" * 40):
        with pytest.raises(errors.ApiError) as exc:
            parse_query(query)
        assert exc.value.status == 400 and exc.value.code == "PGRST100", query
    assert parse_query("a->-2147483647=eq.1").filters[()][0].field.json_path[0].is_index
    for header in ("0-" + "9" * 5000, "9" * 20 + "-"):
        with pytest.raises(errors.ApiError) as exc:
            parse_range(header)
        assert exc.value.status == 416 and exc.value.code == "PGRST103"
    assert parse_range(f"0-{MAX_BIGINT - 1}") == (0, MAX_BIGINT)
    for value in ("9" * 5000, "²", "-1", "", " 1"):
        assert bounded_int(value, MAX_BIGINT) is None
    assert parse_prefer(["max-affected=" + "9" * 5000]).max_affected is None
    assert parse_prefer(["max-affected=²"]).invalid == ("max-affected=²",)


_deep_alphabet = st.sampled_from(["or(", "and(", "not.or(", ")", ",", "a.eq.1", "a->b", "->", "->>", "9" * 30, "(", "x(", "!inner"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_deep_alphabet, max_size=400).map("".join), st.sampled_from(["or=(", "select=", "order=", "limit=", "x.limit=", "a"]))
def test_fuzz_deep_and_numeric_inputs_give_a_result_or_pgrst1xx(text: str, prefix: str) -> None:
    try:
        parse_query(prefix + text + ("=eq.1" if prefix == "a" else ""))
    except errors.ApiError as exc:
        assert exc.code.startswith("PGRST1") and 400 <= exc.status < 500
