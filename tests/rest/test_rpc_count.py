"""/rpc counts and pages as PostgREST's call response: Prefer count=exact puts the total of
the call's rows (after filters, before limit/offset/Range) in Content-Range, 206 for a
partial page, 416 past the end; a function not returning a set counts one row; the Range
header applies to GET only (fixture_rpc.sql)."""

from __future__ import annotations

import pytest

from tests.rest.rpc_cases import NO_BODY, Case, check, ids

JSON = {"Content-Type": "application/json"}
EXACT = {"Prefer": "count=exact"}


def _range(content_range: str, applied: str | None = "count=exact") -> dict[str, str]:
    return {"content-range": content_range, **({"preference-applied": applied} if applied else {})}


CASES = [
    Case("set-all", "GET", "/rpc/rpc_series?n=5", 200, [1, 2, 3, 4, 5], headers=EXACT, expect_headers=_range("0-4/5")),
    Case("set-limit", "GET", "/rpc/rpc_series?n=5&limit=2", 206, [1, 2], headers=EXACT, expect_headers=_range("0-1/5")),
    Case("set-offset", "GET", "/rpc/rpc_series?n=5&offset=4", 206, [5], headers=EXACT, expect_headers=_range("4-4/5")),
    Case("set-range-header", "GET", "/rpc/rpc_series?n=5", 206, [2, 3], headers={**EXACT, "Range": "1-2"},
         expect_headers=_range("1-2/5")),
    # the Range header intersects offset/limit, as on a table (PostgREST's getRanges)
    Case("set-range-header-and-offset", "GET", "/rpc/rpc_series?n=5&offset=1", 206, [2],
         headers={**EXACT, "Range": "0-1"}, expect_headers=_range("1-1/5")),
    Case("set-past-the-end", "GET", "/rpc/rpc_series?n=5&offset=7", 416,
         {"code": "PGRST103", "message": "Requested range not satisfiable",
          "details": "An offset of 7 was requested, but there are only 5 rows.", "hint": None}, headers=EXACT),
    Case("set-without-count", "GET", "/rpc/rpc_series?n=3", 200, [1, 2, 3], expect_headers={"content-range": "0-2/*"},
         absent_headers=("preference-applied",)),
    Case("set-planned-not-counted", "GET", "/rpc/rpc_series?n=3", 200, [1, 2, 3],
         headers={"Prefer": "count=planned"}, expect_headers=_range("0-2/*", "count=planned")),
    Case("set-head", "HEAD", "/rpc/rpc_series?n=5&limit=1", 206, NO_BODY, headers=EXACT, expect_headers=_range("0-0/5")),
    Case("rows-post", "POST", "/rpc/rpc_items", 200, [{"id": 1, "label": "item 1"}, {"id": 2, "label": "item 2"}],
         headers={**JSON, **EXACT}, json={"n": 2}, expect_headers=_range("0-1/2")),
    Case("rows-filtered", "POST", "/rpc/rpc_items?id=gt.1&select=id", 200, [{"id": 2}, {"id": 3}],
         headers={**JSON, **EXACT}, json={"n": 3}, expect_headers=_range("0-1/2")),
    Case("rows-limited", "POST", "/rpc/rpc_items?limit=1&order=id.desc&select=id", 206, [{"id": 3}],
         headers={**JSON, **EXACT}, json={"n": 3}, expect_headers=_range("0-0/3")),
    Case("post-ignores-range-header", "POST", "/rpc/rpc_series", 200, [1, 2, 3],
         headers={**JSON, **EXACT, "Range": "0-0"}, json={"n": 3}, expect_headers=_range("0-2/3")),
    Case("table-rows", "GET", "/rpc/fx_books_by_author?author=1&select=id", 200, [{"id": 1}, {"id": 2}],
         headers=EXACT, expect_headers=_range("0-1/2")),
    Case("scalar", "GET", "/rpc/fx_add?a=1&b=2", 200, 3, headers=EXACT, expect_headers=_range("0-0/1")),
    Case("scalar-post", "POST", "/rpc/fx_add", 200, 3, headers={**JSON, **EXACT}, json={"a": 1, "b": 2},
         expect_headers=_range("0-0/1")),
    Case("scalar-without-count", "GET", "/rpc/fx_add?a=1&b=2", 200, 3, expect_headers={"content-range": "0-0/*"}),
    Case("composite", "GET", "/rpc/rpc_out_pair?a=2", 200, {"doubled": 4, "tripled": 6}, headers=EXACT,
         expect_headers=_range("0-0/1")),
    Case("table-returning-one-column", "GET", "/rpc/rpc_items?n=1&select=label", 200, [{"label": "item 1"}]),
    Case("void", "POST", "/rpc/fx_noop", 204, NO_BODY, headers={**JSON, **EXACT}, json={},
         expect_headers={"preference-applied": "count=exact"}),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_counts_and_pages(anon, case: Case) -> None:
    check(anon, case)


def test_a_counted_volatile_call_runs_once(anon, service) -> None:
    r = anon.post("/rpc/rpc_log_note", headers={**JSON, **EXACT}, json={"note": "counted once"})
    assert r.status_code == 200 and r.headers["content-range"] == "0-0/1"
    assert len(service.get("/rpc_log?note=eq.counted%20once").json()) == 1
