"""limit/offset on PATCH and DELETE, and ranges on writes, as PostgREST 12 has them: a
limited update or delete needs an explicit order (PGRST109), changes the rows a read in that
order would page to, and the Range header is for GET only. Content-Range of writes as its
Response.hs writes it. Fixture: fixture_writes.sql (fx_w_queue: ids 1 to 6). Every case is
rolled back (tx=rollback)."""

from __future__ import annotations

from typing import NamedTuple

import pytest

JSON = {"Content-Type": "application/json"}
PGRST109 = {"code": "PGRST109", "details": None, "hint": "Apply an 'order' using unique column(s)",
            "message": "A 'limit' was applied without an explicit 'order'"}


class Case(NamedTuple):
    name: str
    method: str
    path: str
    headers: dict[str, str]
    status: int
    content_range: str | None
    body: object  # the changed ids, or the error body


CASES = [
    Case("update, first two by id", "PATCH", "/fx_w_queue?order=id&limit=2", {}, 200, "0-1/*", [1, 2]),
    Case("update, descending with an offset", "PATCH", "/fx_w_queue?order=id.desc&limit=2&offset=1", {}, 200, "0-1/*",
         [5, 4]),
    Case("update, filtered first", "PATCH", "/fx_w_queue?id=gt.3&order=id&limit=1", {}, 200, "0-0/*", [4]),
    Case("update, only an offset", "PATCH", "/fx_w_queue?order=id&offset=4", {}, 200, "0-1/*", [5, 6]),
    Case("update, counted", "PATCH", "/fx_w_queue?order=id&limit=3", {"Prefer": "count=exact"}, 200, "0-2/3",
         [1, 2, 3]),
    Case("delete, one after the first two", "DELETE", "/fx_w_queue?order=id&limit=1&offset=2", {}, 200, "*/*", [3]),
    Case("delete, last two, counted", "DELETE", "/fx_w_queue?order=id.desc&limit=2", {"Prefer": "count=exact"}, 200,
         "*/2", [6, 5]),
    Case("update with a limit and no order", "PATCH", "/fx_w_queue?limit=2", {}, 400, None, PGRST109),
    Case("delete with an offset and no order", "DELETE", "/fx_w_queue?offset=1", {}, 400, None, PGRST109),
    # the Range header is only for GET: the write changes every row it filters
    Case("update ignores Range", "PATCH", "/fx_w_queue?id=lt.4", {"Range": "0-0"}, 200, "0-2/*", [1, 2, 3]),
    Case("delete ignores Range", "DELETE", "/fx_w_queue?id=gt.4", {"Range": "0-0"}, 200, "*/*", [5, 6]),
    Case("PUT ignores Range", "PUT", "/fx_w_queue?id=eq.3", {"Range": "1-1"}, 200, None, [3]),
    Case("PUT refuses a limit", "PUT", "/fx_w_queue?id=eq.3&limit=1", {}, 400, None,
         {"code": "PGRST114", "details": None, "hint": None,
          "message": "limit/offset querystring parameters are not allowed for PUT"}),
    # count=planned does not count a write
    Case("update, planned count", "PATCH", "/fx_w_queue?id=lt.3", {"Prefer": "count=planned"}, 200, "0-1/*", [1, 2]),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_limited_writes(service, case: Case) -> None:
    prefer = ",".join(p for p in ("return=representation", "tx=rollback", case.headers.get("Prefer")) if p)
    headers = {**JSON, **case.headers, "Prefer": prefer}
    body = {"id": 3, "state": "put"} if case.method == "PUT" else ({"state": "taken"} if case.method == "PATCH" else None)
    r = service.request(case.method, case.path + "&select=id" if "?" in case.path else case.path, headers=headers,
                        json=body)
    assert r.status_code == case.status, r.text
    assert r.headers.get("content-range") == case.content_range
    if r.status_code < 400:
        assert [row["id"] for row in r.json()] == case.body
    else:
        assert r.json() == case.body


def test_a_limited_update_changes_only_its_rows(service) -> None:
    r = service.patch("/fx_w_queue?order=id.desc&limit=1", headers={**JSON, "Prefer": "tx=rollback"},
                      json={"state": "taken"})
    assert r.status_code == 204
    # rolled back: nothing taken; and committed, exactly the last row
    assert service.get("/fx_w_queue?state=eq.taken").json() == []
    r = service.patch("/fx_w_queue?order=id.desc&limit=1", headers=JSON, json={"state": "taken"})
    assert r.status_code == 204
    assert service.get("/fx_w_queue?state=eq.taken&select=id").json() == [{"id": 6}]
    service.patch("/fx_w_queue?id=eq.6", headers=JSON, json={"state": "new"})
