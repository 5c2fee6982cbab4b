"""/rpc methods and transactions as PostgREST's callReadPlan: GET and HEAD call any function
(VOLATILE too) in a read-only transaction, so a function that writes fails with PostgreSQL's
25006, answered 405; POST runs VOLATILE functions read-write and the others read-only;
other methods answer PGRST101. And one statement per request shape, bound anew each time:
repeated calls with the same or other argument values (fixture_rpc.sql)."""

from __future__ import annotations

import pytest

from tests.rest.rpc_cases import NO_BODY, Case, check, ids

JSON = {"Content-Type": "application/json"}

READ_ONLY = {"code": "25006", "details": None, "hint": None,
             "message": "cannot execute INSERT in a read-only transaction"}


def _no_rpc_method(method: str) -> dict[str, object]:
    return {"code": "PGRST101", "details": None, "hint": None, "message": f"Cannot use the {method} method on RPC"}


METHOD_CASES = [
    Case("get-volatile", "GET", "/rpc/rpc_double?a=21", 200, 42),
    Case("head-volatile", "HEAD", "/rpc/rpc_double?a=21", 200, NO_BODY,
         expect_headers={"content-range": "0-0/*"}),
    Case("get-volatile-writing", "GET", "/rpc/rpc_log_note?note=by-get", 405, READ_ONLY),
    Case("head-volatile-writing", "HEAD", "/rpc/rpc_log_note?note=by-head", 405, NO_BODY),
    Case("post-volatile-writing", "POST", "/rpc/rpc_log_note", 200, headers=JSON, json={"note": "by-post"}),
    Case("post-stable-runs-read-only", "POST", "/rpc/rpc_stable_logger", 405, READ_ONLY, headers=JSON,
         json={"note": "by-stable"}),
    Case("get-stable", "GET", "/rpc/fx_book_titles?min_pages=300&select=title", 200, [{"title": "The Dispossessed"}]),
    Case("patch", "PATCH", "/rpc/fx_add", 405, _no_rpc_method("PATCH"), headers=JSON, json={"a": 1, "b": 2}),
    Case("put", "PUT", "/rpc/fx_add", 405, _no_rpc_method("PUT"), headers=JSON, json={"a": 1, "b": 2}),
    Case("delete", "DELETE", "/rpc/fx_add", 405, _no_rpc_method("DELETE")),
]


@pytest.mark.parametrize("case", METHOD_CASES, ids=ids(METHOD_CASES))
def test_methods_and_transactions(anon, case: Case) -> None:
    check(anon, case)


def test_only_the_post_wrote(anon, service) -> None:
    for case in METHOD_CASES:
        if case.path.startswith(("/rpc/rpc_log_note", "/rpc/rpc_stable_logger")):
            check(anon, case)
    notes = [r["note"] for r in service.get("/rpc_log?select=note&order=id").json()]
    assert "by-post" in notes
    assert not {"by-get", "by-head", "by-stable"} & set(notes)


# The same request three times, then other values of the same shape: each answer its own.
REPEATED = [
    Case("get-args", "GET", "/rpc/fx_add?a=2&b=3", 200, 5),
    Case("get-args-other-values", "GET", "/rpc/fx_add?a=40&b=2", 200, 42),
    Case("get-typed-args", "GET", "/rpc/rpc_describe?n=1&label=x&tags=%7Ba,b%7D&meta=%7B%22k%22:1%7D", 200,
         {"n": 1, "label": "x", "tags": ["a", "b"], "meta": {"k": 1}}),
    Case("get-typed-args-other-values", "GET", "/rpc/rpc_describe?n=2&label=y", 200,
         {"n": 2, "label": "y", "tags": [], "meta": None}),
    Case("get-variadic", "GET", "/rpc/rpc_sum?nums=1&nums=2&nums=3", 200, 6),
    Case("get-variadic-one", "GET", "/rpc/rpc_sum?nums=5", 200, 5),
    Case("get-char-not-cut", "GET", "/rpc/rpc_padded?code=abc", 200, "abc"),
    Case("get-set-with-args", "GET", "/rpc/fx_books_by_author?author=2&select=id", 200, [{"id": 3}, {"id": 4}]),
    Case("post-args", "POST", "/rpc/fx_add", 200, 3, headers=JSON, json={"a": 1, "b": 2}),
    Case("post-args-other-values", "POST", "/rpc/fx_add", 200, 30, headers=JSON, json={"a": 10, "b": 20}),
    Case("post-typed-args", "POST", "/rpc/rpc_describe", 200, {"n": 3, "label": "z", "tags": ["c"], "meta": [1]},
         headers=JSON, json={"n": 3, "label": "z", "tags": ["c"], "meta": [1]}),
    Case("post-variadic", "POST", "/rpc/rpc_sum", 200, 6, headers=JSON, json={"nums": [1, 2, 3]}),
    Case("post-array-first-object", "POST", "/rpc/fx_add", 200, 3, headers=JSON, json=[{"a": 1, "b": 2}, {"a": 5, "b": 5}]),
    Case("post-columns", "POST", "/rpc/fx_add?columns=a,b", 200, 7, headers=JSON, json={"a": 3, "b": 4, "c": 9}),
    Case("post-form", "POST", "/rpc/fx_add", 200, 9, headers={"Content-Type": "application/x-www-form-urlencoded"},
         content=b"a=4&b=5"),
    Case("post-form-other-values", "POST", "/rpc/fx_add", 200, 11,
         headers={"Content-Type": "application/x-www-form-urlencoded"}, content=b"a=5&b=6"),
]


@pytest.mark.parametrize("case", REPEATED, ids=ids(REPEATED))
def test_repeated_calls_each_bind_their_own_arguments(anon, case: Case) -> None:
    for _ in range(3):
        check(anon, case)


def test_interleaved_calls_of_one_shape(anon) -> None:
    for a in range(6):
        assert anon.get(f"/rpc/fx_add?a={a}&b=1").json() == a + 1
        assert anon.post("/rpc/fx_add", headers=JSON, json={"a": a, "b": 2}).json() == a + 2
