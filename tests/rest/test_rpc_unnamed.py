"""/rpc overloads as PostgREST's findProc and Error.hs (fixture_rpc.sql): a function with one
unnamed parameter takes the raw body (application/json for json/jsonb, text/plain for text,
text/xml for xml, application/octet-stream for bytea); functions with an unnamed parameter of
another type are not callable at all; several fitting overloads answer 300 PGRST203 (fewest
parameters first); PGRST202 says what was searched, with PostgREST's fuzzy hint, and none for
a raw body."""

from __future__ import annotations

import pytest

from tests.rest.rpc_cases import Case, check, ids

JSON = {"Content-Type": "application/json"}
TEXT = {"Content-Type": "text/plain"}
OCTET = {"Content-Type": "application/octet-stream"}
AMBIGUOUS_HINT = "Try renaming the parameters or the function itself in the database so function overloading can be resolved"


def _not_found(message: str, details: str, hint: str | None) -> dict[str, object]:
    return {"code": "PGRST202", "message": message, "details": details, "hint": hint}


CASES = [
    Case("json-body-as-is", "POST", "/rpc/rpc_unnamed_json", 200, {"A": 1, "B": [2]}, headers=JSON,
         json={"A": 1, "B": [2]}),
    Case("jsonb-body-as-is", "POST", "/rpc/rpc_unnamed_jsonb", 200, [{"a": 1}, {"a": 2}], headers=JSON,
         json=[{"a": 1}, {"a": 2}]),
    Case("json-body-array-of-scalars", "POST", "/rpc/rpc_unnamed_jsonb", 400,
         {"code": "PGRST102", "message": "All object keys must match", "details": None, "hint": None},
         headers=JSON, json=[1, 2]),
    Case("text-body", "POST", "/rpc/rpc_unnamed_text", 200, "unnamed text arg", headers=TEXT,
         content=b"unnamed text arg"),
    Case("text-body-utf8", "POST", "/rpc/rpc_unnamed_text", 200, "leçon d'été",
         headers={"Content-Type": "text/plain; charset=utf-8"}, content="leçon d'été".encode()),
    Case("bytea-body", "POST", "/rpc/rpc_unnamed_bytea", 200, "0001ff2a", headers=OCTET, content=b"\x00\x01\xff*"),
    Case("named-json-param-refuses-the-body", "POST", "/rpc/rpc_named_json", 404, _not_found(
        "Could not find the function public.rpc_named_json(A, B, C) in the schema cache",
        "Searched for the function public.rpc_named_json with parameters A, B, C or with a single unnamed"
        " json/jsonb parameter, but no matches were found in the schema cache.", None),
        headers=JSON, json={"A": 1, "B": 2, "C": 3}),
    Case("unnamed-int-not-callable-json", "POST", "/rpc/rpc_unnamed_int", 404, _not_found(
        "Could not find the function public.rpc_unnamed_int(x, y) in the schema cache",
        "Searched for the function public.rpc_unnamed_int with parameters x, y or with a single unnamed"
        " json/jsonb parameter, but no matches were found in the schema cache.",
        "Perhaps you meant to call the function public.rpc_unnamed_text"), headers=JSON, json={"x": 1, "y": 2}),
    Case("unnamed-int-not-callable-text", "POST", "/rpc/rpc_unnamed_int", 404, _not_found(
        "Could not find the function public.rpc_unnamed_int in the schema cache",
        "Searched for the function public.rpc_unnamed_int with a single unnamed text parameter, but no matches"
        " were found in the schema cache.", None), headers=TEXT, content=b"a simple text"),
    Case("unnamed-int-not-callable-xml", "POST", "/rpc/rpc_unnamed_int", 404, _not_found(
        "Could not find the function public.rpc_unnamed_int in the schema cache",
        "Searched for the function public.rpc_unnamed_int with a single unnamed xml parameter, but no matches"
        " were found in the schema cache.", None), headers={"Content-Type": "text/xml"}, content=b"<a/>"),
    Case("unnamed-int-not-callable-bytea", "POST", "/rpc/rpc_unnamed_int", 404, _not_found(
        "Could not find the function public.rpc_unnamed_int in the schema cache",
        "Searched for the function public.rpc_unnamed_int with a single unnamed bytea parameter, but no matches"
        " were found in the schema cache.", None), headers=OCTET, content=b"\x89PNG"),
    Case("unnamed-int-not-callable-get", "GET", "/rpc/rpc_unnamed_int", 404, _not_found(
        "Could not find the function public.rpc_unnamed_int without parameters in the schema cache",
        "Searched for the function public.rpc_unnamed_int without parameters, but no matches were found in the"
        " schema cache.", "Perhaps you meant to call the function public.rpc_unnamed_text")),
    # overloads: the named ones first, else the one unnamed parameter fitting the content type
    Case("overload-none", "POST", "/rpc/rpc_ov_unnamed", 200, "none", headers=JSON, json={}),
    Case("overload-named", "POST", "/rpc/rpc_ov_unnamed", 200, "sum: 3", headers=JSON, json={"x": 1, "y": 2}),
    Case("overload-fallback-json", "POST", "/rpc/rpc_ov_unnamed", 200, 'json: {"A":1,"B":2}', headers=JSON,
         content=b'{"A":1,"B":2}'),
    Case("overload-fallback-text", "POST", "/rpc/rpc_ov_unnamed", 200, "text: unnamed text arg", headers=TEXT,
         content=b"unnamed text arg"),
    Case("overload-fallback-bytea", "POST", "/rpc/rpc_ov_unnamed", 200, "bytea: 4142", headers=OCTET, content=b"AB"),
    Case("overload-get-ignores-content-type", "GET", "/rpc/rpc_ov_unnamed", 200, "none", headers=TEXT),
    Case("overload-csv-no-fallback", "POST", "/rpc/rpc_ov_unnamed", 404, _not_found(
        "Could not find the function public.rpc_ov_unnamed(a, b) in the schema cache",
        "Searched for the function public.rpc_ov_unnamed with parameters a, b, but no matches were found in the"
        " schema cache.", "Perhaps you meant to call the function public.rpc_ov_unnamed(x, y)"),
        headers={"Content-Type": "text/csv"}, content=b"a,b\n1,2\n4,6"),
    Case("overload-json-and-jsonb", "POST", "/rpc/rpc_ov_json_jsonb", 300, {
        "code": "PGRST203", "details": None, "hint": AMBIGUOUS_HINT,
        "message": "Could not choose the best candidate function between: public.rpc_ov_json_jsonb( => json),"
                   " public.rpc_ov_json_jsonb( => jsonb)"}, headers=JSON, json={"A": 1}),
    Case("empty-key-picks-text", "POST", "/rpc/rpc_pick", 200, 'text: {"":"hi"}', headers=JSON, content=b'{"":"hi"}'),
    Case("named-overloads-ambiguous", "GET", "/rpc/rpc_amb?a=1", 300, {
        "code": "PGRST203", "details": None, "hint": AMBIGUOUS_HINT,
        "message": "Could not choose the best candidate function between: public.rpc_amb(a => integer, b => text),"
                   " public.rpc_amb(a => integer, c => integer)"}),
    Case("named-overloads-one-fits", "GET", "/rpc/rpc_amb?a=1&c=2", 200, "ac"),
    Case("no-function-close-name", "GET", "/rpc/rpc_doubl?a=1", 404, _not_found(
        "Could not find the function public.rpc_doubl(a) in the schema cache",
        "Searched for the function public.rpc_doubl with parameter a, but no matches were found in the schema cache.",
        "Perhaps you meant to call the function public.rpc_double")),
    Case("no-function-no-close-name", "POST", "/rpc/zzz_nothing_like_it", 404, _not_found(
        "Could not find the function public.zzz_nothing_like_it without parameters in the schema cache",
        "Searched for the function public.zzz_nothing_like_it without parameters or with a single unnamed"
        " json/jsonb parameter, but no matches were found in the schema cache.", None), headers=JSON, json={}),
    Case("params-hint", "POST", "/rpc/fx_add", 404, _not_found(
        "Could not find the function public.fx_add(a) in the schema cache",
        "Searched for the function public.fx_add with parameter a or with a single unnamed json/jsonb parameter,"
        " but no matches were found in the schema cache.",
        "Perhaps you meant to call the function public.fx_add(a, b)"), headers=JSON, json={"a": 1}),
]


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
def test_unnamed_parameters_and_overloads(anon, case: Case) -> None:
    check(anon, case)


def test_xml_body_reaches_the_xml_function(anon) -> None:
    r = anon.post("/rpc/rpc_unnamed_xml", headers={"Content-Type": "text/xml"}, content=b"<note><to>Jane</to></note>")
    if r.status_code == 400:  # a PostgreSQL built without libxml still shows the xml parameter was called
        assert r.json()["code"] == "0A000"
    else:
        assert r.status_code == 200 and r.json() == "<note><to>Jane</to></note>"


def test_a_text_body_may_not_hold_nul(anon) -> None:
    r = anon.post("/rpc/rpc_unnamed_text", headers=TEXT, content=b"a\x00b")
    assert r.status_code == 400 and r.json()["code"] == "22021"
