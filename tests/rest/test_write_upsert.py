"""Upserts and defaults as PostgREST 12 answers them (Response.hs, Query/QueryBuilder.hs):
an upsert that only updates answers 200, one that inserts anything 201 (PostgreSQL counts
them in pgrst.inserted); Prefer: missing=default fills serial and identity columns.
Fixture: fixture_writes.sql. Every case runs in a rolled-back transaction (tx=rollback), so
each starts from the fixture's rows."""

from __future__ import annotations

from typing import Any, NamedTuple

import pytest

JSON = {"Content-Type": "application/json"}


class Case(NamedTuple):
    name: str
    method: str
    path: str
    prefer: str
    body: Any
    status: int
    applied: str | None  # Preference-Applied, tx=rollback left out
    rows: Any  # the JSON body; None: empty


UPSERTS = [
    Case("merge-duplicates that only updates", "POST", "/fx_w_langs", "return=representation,resolution=merge-duplicates",
         [{"name": "java", "rank": 3}, {"name": "c", "rank": 1}], 200,
         "resolution=merge-duplicates, return=representation", [{"name": "java", "rank": 3}, {"name": "c", "rank": 1}]),
    Case("merge-duplicates that inserts one row", "POST", "/fx_w_langs", "return=representation,resolution=merge-duplicates",
         [{"name": "java", "rank": 3}, {"name": "go", "rank": 9}], 201,
         "resolution=merge-duplicates, return=representation", [{"name": "java", "rank": 3}, {"name": "go", "rank": 9}]),
    Case("merge-duplicates of nothing", "POST", "/fx_w_langs", "return=representation,resolution=merge-duplicates",
         [], 200, "resolution=merge-duplicates, return=representation", []),
    Case("merge-duplicates that only updates, minimal", "POST", "/fx_w_langs", "resolution=merge-duplicates",
         {"name": "c", "rank": 4}, 200, "resolution=merge-duplicates", None),
    Case("merge-duplicates on a unique column", "POST", "/fx_w_keyed?on_conflict=code&select=code,label",
         "return=representation,resolution=merge-duplicates", [{"code": "a", "label": "renamed"}], 200,
         "resolution=merge-duplicates, return=representation", [{"code": "a", "label": "renamed"}]),
    Case("ignore-duplicates that inserts nothing is still 201", "POST", "/fx_w_langs",
         "return=representation,resolution=ignore-duplicates", [{"name": "java", "rank": 5}], 201,
         "resolution=ignore-duplicates, return=representation", []),
    Case("ignore-duplicates keeps the new rows", "POST", "/fx_w_langs", "return=representation,resolution=ignore-duplicates",
         [{"name": "java", "rank": 5}, {"name": "zig", "rank": 30}], 201,
         "resolution=ignore-duplicates, return=representation", [{"name": "zig", "rank": 30}]),
    Case("no key: the resolution is not applied, the rows inserted", "POST", "/fx_w_nopk",
         "return=representation,resolution=merge-duplicates", [{"a": "1", "b": "0"}], 201, "return=representation",
         [{"a": "1", "b": "0"}]),
    Case("PUT that inserts", "PUT", "/fx_w_langs?name=eq.rust", "return=representation", {"name": "rust", "rank": 7},
         201, "return=representation", [{"name": "rust", "rank": 7}]),
    Case("PUT that updates", "PUT", "/fx_w_langs?name=eq.java", "return=representation", {"name": "java", "rank": 8},
         200, "return=representation", [{"name": "java", "rank": 8}]),
    Case("PUT without a representation", "PUT", "/fx_w_langs?name=eq.rust", "", {"name": "rust", "rank": 7},
         204, None, None),
    Case("a plain insert", "POST", "/fx_w_langs", "return=representation", {"name": "ada", "rank": 40}, 201,
         "return=representation", [{"name": "ada", "rank": 40}]),
]


def _send(service, case: Case):
    prefer = ",".join(p for p in (case.prefer, "tx=rollback") if p)
    return service.request(case.method, case.path, headers={**JSON, "Prefer": prefer}, json=case.body)


@pytest.mark.parametrize("case", UPSERTS, ids=[c.name for c in UPSERTS])
def test_upsert_status(service, case: Case) -> None:
    r = _send(service, case)
    assert r.status_code == case.status, r.text
    applied = r.headers.get("preference-applied", "").replace(", tx=rollback", "").replace("tx=rollback", "")
    assert (applied or None) == case.applied
    assert (r.json() if r.content else None) == case.rows


def test_put_has_no_content_range_and_creates_count(service) -> None:
    r = service.request("PUT", "/fx_w_langs?name=eq.java", headers={**JSON, "Prefer": "tx=rollback"},
                        json={"name": "java", "rank": 1})
    assert r.status_code == 204 and "content-range" not in r.headers
    r = service.post("/fx_w_langs", headers={**JSON, "Prefer": "tx=rollback,count=exact"},
                     json=[{"name": "x1"}, {"name": "x2"}])
    assert r.status_code == 201 and r.headers["content-range"] == "*/2"


class Default(NamedTuple):
    name: str
    path: str
    body: Any
    status: int
    check: Any  # the rows' expected fields (a callable check for generated values), or the error code


def _sequence_ids(rows: list[dict[str, Any]], given: dict[int, int], after: int) -> bool:
    """Rows left without an id got one from the sequence (past the fixture's `after` rows); given ids stay."""
    return all(r["id"] == given[i] if i in given else r["id"] > after for i, r in enumerate(rows))


DEFAULTS = [
    Default("identity by default", "/fx_w_keyed?columns=id,code,label&select=id,code",
            [{"code": "c", "label": "x"}, {"id": 50, "code": "d"}], 201,
            lambda rows: _sequence_ids(rows, {1: 50}, 2) and [r["code"] for r in rows] == ["c", "d"]),
    Default("serial", "/fx_w_serial?columns=id,label&select=id,label", [{"label": "two"}, {"id": 70, "label": "three"}],
            201, lambda rows: _sequence_ids(rows, {1: 70}, 1) and [r["label"] for r in rows] == ["two", "three"]),
    Default("serial under merge-duplicates updates and inserts", "/fx_w_serial?columns=id,label&select=id,label,extra",
            [{"id": 1, "label": "updated"}, {"label": "new"}], 201,
            lambda rows: rows[0] == {"id": 1, "label": "updated", "extra": "kept"} and _sequence_ids(rows, {0: 1}, 1)),
    Default("a column's DEFAULT", "/fx_w_queue?columns=id,state&select=id,state", [{"id": 100}], 201,
            lambda rows: rows == [{"id": 100, "state": "new"}]),
    Default("identity always, left out of the columns", "/fx_w_always?select=id,label,doubled", [{"label": "abc"}], 201,
            lambda rows: rows[0]["id"] >= 1 and rows[0]["doubled"] == 6),
    # PostgREST's schema cache has no default for these: the NULL sent is refused
    Default("identity always, in the columns", "/fx_w_always?columns=id,label", [{"label": "a"}], 400, "428C9"),
    Default("a generated column in the columns", "/fx_w_always?columns=label,doubled", [{"label": "a"}], 400, "428C9"),
]


@pytest.mark.parametrize("case", DEFAULTS, ids=[c.name for c in DEFAULTS])
def test_missing_default(service, case: Default) -> None:
    resolution = ",resolution=merge-duplicates" if "merge" in case.name else ""
    r = service.post(case.path, json=case.body,
                     headers={**JSON, "Prefer": f"return=representation,missing=default,tx=rollback{resolution}"})
    assert r.status_code == case.status, r.text
    if isinstance(case.check, str):
        assert r.json()["code"] == case.check
    else:
        assert case.check(r.json()), r.json()
        assert "missing=default" in r.headers["preference-applied"]


def test_without_missing_default_an_identity_gets_null(service) -> None:
    r = service.post("/fx_w_keyed?columns=id,code", json=[{"code": "z"}], headers={**JSON, "Prefer": "tx=rollback"})
    assert r.status_code == 400 and r.json()["code"] == "23502"
