"""POST / PATCH / PUT / DELETE: Prefer return, upserts, columns, missing=default, tx, max-affected."""

from __future__ import annotations

import orjson

JSON = {"Content-Type": "application/json"}
REP = {**JSON, "Prefer": "return=representation"}


def test_insert_minimal_and_representation(service) -> None:
    r = service.post("/fx_genres", headers=JSON, json={"name": "w-minimal"})
    assert r.status_code == 201 and r.content == b""
    r = service.post("/fx_genres?select=name", headers=REP, json={"name": "w-rep"})
    assert r.status_code == 201 and r.json() == [{"name": "w-rep"}]
    assert r.headers["preference-applied"] == "return=representation"


def test_bulk_insert_with_columns_and_embed(service) -> None:
    rows = [{"title": "w-bulk-1", "author_id": 1, "ignored": 1}, {"title": "w-bulk-2", "author_id": 2, "ignored": 2}]
    r = service.post("/fx_books?columns=title,author_id&select=title,fx_authors!author_id(name)", headers=REP, json=rows)
    assert r.status_code == 201, r.text
    assert r.json() == [{"title": "w-bulk-1", "fx_authors": {"name": "Ursula"}},
                        {"title": "w-bulk-2", "fx_authors": {"name": "Terry"}}]


def test_missing_default_versus_null(service) -> None:
    body = [{"title": "w-def-1", "available": False}, {"title": "w-def-2"}]
    r = service.post("/fx_books?columns=title,available&select=title,available",
                     headers={**REP, "Prefer": "return=representation,missing=default"}, json=body)
    assert r.json() == [{"title": "w-def-1", "available": False}, {"title": "w-def-2", "available": True}]
    assert "missing=default" in r.headers["preference-applied"]
    r = service.post("/fx_books?columns=title,available", headers=REP, json=[{"title": "w-def-3"}])
    assert r.status_code == 400 and r.json()["code"] == "23502"  # not null violated: null was inserted


def test_upsert_merge_and_ignore(service) -> None:
    r = service.post("/fx_genres?on_conflict=name&select=name", json=[{"name": "fantasy"}, {"name": "w-up"}],
                     headers={**JSON, "Prefer": "return=representation,resolution=ignore-duplicates"})
    assert r.json() == [{"name": "w-up"}]
    r = service.post("/fx_isbns?select=book_id,code", json={"book_id": 1, "code": "w-isbn"},
                     headers={**JSON, "Prefer": "return=representation,resolution=merge-duplicates"})
    assert r.json() == [{"book_id": 1, "code": "w-isbn"}]
    assert "resolution=merge-duplicates" in r.headers["preference-applied"]


def test_patch_and_delete_with_filters(service) -> None:
    service.post("/fx_genres", headers=JSON, json=[{"name": "w-p1"}, {"name": "w-p2"}])
    r = service.patch("/fx_genres?name=like.w-p*&select=name", headers={**REP, "Prefer": "return=representation,count=exact"},
                      json={"name": "w-patched"} if False else {})
    assert r.status_code == 200
    r = service.patch("/fx_genres?name=eq.w-p1", headers=JSON, json={"name": "w-p1b"})
    assert r.status_code == 204 and r.headers["content-range"] == "0-0/*"
    r = service.delete("/fx_genres?name=in.(w-p1b,w-p2)&select=name&order=name", headers={"Prefer": "return=representation"})
    assert r.status_code == 200 and sorted(x["name"] for x in r.json()) == ["w-p1b", "w-p2"]
    r = service.delete("/fx_genres?name=eq.nothing-here")
    assert r.status_code == 204


def test_put_upserts_by_primary_key(service) -> None:
    r = service.request("PUT", "/fx_genres?id=eq.900", headers=REP, json={"id": 900, "name": "w-put"})
    assert r.status_code == 201 and r.json() == [{"id": 900, "name": "w-put"}]  # inserted
    r = service.request("PUT", "/fx_genres?id=eq.900", headers=REP, json={"id": 900, "name": "w-put2"})
    assert r.status_code == 200 and r.json() == [{"id": 900, "name": "w-put2"}]  # updated
    r = service.request("PUT", "/fx_genres?id=eq.900", headers=REP, json={"id": 901, "name": "x"})
    assert r.status_code == 400 and r.json()["code"] == "PGRST115"
    r = service.request("PUT", "/fx_genres?name=eq.x", headers=REP, json={"id": 901, "name": "x"})
    assert r.status_code == 405 and r.json()["code"] == "PGRST105"


def test_tx_rollback_and_max_affected(service) -> None:
    r = service.post("/fx_genres?select=name", json={"name": "w-rolled-back"},
                     headers={**JSON, "Prefer": "return=representation,tx=rollback"})
    assert r.status_code == 201 and r.json() == [{"name": "w-rolled-back"}]
    assert "tx=rollback" in r.headers["preference-applied"]
    assert service.get("/fx_genres?name=eq.w-rolled-back").json() == []
    service.post("/fx_genres", headers=JSON, json=[{"name": "w-max1"}, {"name": "w-max2"}])
    r = service.delete("/fx_genres?name=like.w-max*", headers={"Prefer": "handling=strict,max-affected=1"})
    assert r.status_code == 400 and r.json()["code"] == "PGRST124"
    assert len(service.get("/fx_genres?name=like.w-max*").json()) == 2


def test_single_object_write_rolls_back_when_not_one_row(service) -> None:
    r = service.post("/fx_genres", json=[{"name": "w-s1"}, {"name": "w-s2"}],
                     headers={**JSON, "Prefer": "return=representation", "Accept": "application/vnd.pgrst.object+json"})
    assert r.status_code == 406 and r.json()["code"] == "PGRST116"
    assert service.get("/fx_genres?name=like.w-s*").json() == []


def test_csv_body(service) -> None:
    r = service.post("/fx_genres?select=name", content=b"name\nw-csv1\nw-csv2",
                     headers={"Content-Type": "text/csv", "Prefer": "return=representation"})
    assert r.status_code == 201 and r.json() == [{"name": "w-csv1"}, {"name": "w-csv2"}]


def test_bad_bodies(service) -> None:
    r = service.post("/fx_genres", headers=JSON, content=b"{not json")
    assert r.status_code == 400 and r.json()["code"] == "PGRST102"
    r = service.post("/fx_genres", headers=JSON, content=orjson.dumps([{"name": "a"}, {"nom": "b"}]))
    assert r.status_code == 400 and r.json() == {"code": "PGRST102", "details": None, "hint": None, "message": "All object keys must match"}
    r = service.post("/fx_genres", headers=JSON, json={"nope": 1})
    assert r.status_code == 400 and r.json()["code"] == "PGRST204"
    r = service.post("/fx_genres", headers=JSON, json={"name": "fantasy"})
    assert r.status_code == 409 and r.json()["code"] == "23505"
    r = service.post("/fx_books", headers=JSON, json={"title": "x", "author_id": 999})
    assert r.status_code == 409 and r.json()["code"] == "23503"
