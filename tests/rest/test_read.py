"""GET /rest/v1/<table>: select, filters, order, paging, embedding, media types."""

from __future__ import annotations

import pytest


def titles(resp) -> list[str]:
    assert resp.status_code == 200, resp.text
    return [r["title"] for r in resp.json()]


def test_select_aliases_casts_and_json_paths(anon) -> None:
    r = anon.get("/fx_books?select=id,name:title,pages::text,lang:meta->>lang,first_award:meta->awards->>0&id=eq.1")
    assert r.json() == [{"id": 1, "name": "A Wizard of Earthsea", "pages": "183", "lang": "en", "first_award": "x"}]


@pytest.mark.parametrize("query,expected", [
    ("id=eq.2", ["The Dispossessed"]),
    ("id=neq.2&id=lt.4&order=id", ["A Wizard of Earthsea", "Mort"]),
    ("pages=gte.288&order=pages", ["Guards! Guards!", "The Dispossessed"]),
    ("title=like.*Guards*", ["Guards! Guards!"]),
    ("title=ilike.mort", ["Mort"]),
    ("title=match.^The", ["The Dispossessed"]),
    ("title=imatch.^the", ["The Dispossessed"]),
    ("id=in.(1,3)&order=id", ["A Wizard of Earthsea", "Mort"]),
    ("price=is.null", ["Guards! Guards!"]),
    ("price=not.is.null&id=lte.1", ["A Wizard of Earthsea"]),
    ("editor_id=isdistinct.1&order=id", ["A Wizard of Earthsea", "The Dispossessed", "Guards! Guards!"]),
    ("summary=fts.wizard", ["A Wizard of Earthsea"]),
    ("summary=plfts(english).young wizard", ["A Wizard of Earthsea"]),
    ("summary=phfts.two worlds", ["The Dispossessed"]),
    ("summary=wfts.dragon -wizard", ["Guards! Guards!"]),
    ("tags=cs.{humour}", ["Mort"]),
    ("tags=cd.{fantasy,classic,sf}&order=id", ["A Wizard of Earthsea", "The Dispossessed", "Guards! Guards!"]),
    ("tags=ov.{sf,humour}&order=id", ["The Dispossessed", "Mort"]),
    ("meta=cs.{\"lang\":\"en\"}&meta->awards=not.is.null", ["A Wizard of Earthsea"]),
    ("meta->>lang=eq.en&pages=gt.300", ["The Dispossessed"]),
    ("title=like(any).{Mort*,*Earthsea}&order=id", ["A Wizard of Earthsea", "Mort"]),
    ("title=like(all).{*a*,*Wiz*}", ["A Wizard of Earthsea"]),
    ("or=(id.eq.1,id.eq.4)&order=id", ["A Wizard of Earthsea", "Guards! Guards!"]),
    ("or=(title.eq.Mort,and(pages.gt.300,price.gt.10))&order=id", ["The Dispossessed", "Mort"]),
    ("not.or=(id.eq.1,id.eq.2)&order=id", ["Mort", "Guards! Guards!"]),
    ("and=(pages.gt.200,or(price.is.null,price.lt.9))&order=id", ["Mort", "Guards! Guards!"]),
    ("id=not.in.(1,2,3)", ["Guards! Guards!"]),
])
def test_horizontal_filters(anon, query: str, expected: list[str]) -> None:
    assert titles(anon.get(f"/fx_books?select=title&{query}")) == expected


def test_range_operators(anon) -> None:
    def rooms(q: str) -> list[str]:
        return [r["room"] for r in anon.get(f"/fx_reservations?select=room&order=room&{q}").json()]
    assert rooms("seats=sl.[15,40)") == ["a"]
    assert rooms("seats=sr.[11,15)") == ["b"]
    assert rooms("seats=nxr.[5,15)") == ["a"]
    assert rooms("seats=nxl.[15,25)") == ["b"]
    assert rooms("seats=adj.[10,20)") == ["a", "b"]
    assert rooms("seats=ov.[5,25)") == ["a", "b"]


def test_order_limit_offset_and_nulls(anon) -> None:
    assert titles(anon.get("/fx_books?select=title&order=price.desc.nullsfirst&limit=2")) == ["Guards! Guards!", "The Dispossessed"]
    assert titles(anon.get("/fx_books?select=title&order=price.asc.nullslast,id&offset=3")) == ["Guards! Guards!"]
    assert titles(anon.get("/fx_books?select=title&order=author_id.desc,pages.asc&limit=1")) == ["Mort"]


def test_count_and_content_range(anon) -> None:
    r = anon.get("/fx_books?select=id&order=id&limit=2&offset=1", headers={"Prefer": "count=exact"})
    assert r.status_code == 206
    assert r.headers["content-range"] == "1-2/4"
    assert r.headers["preference-applied"] == "count=exact"
    r = anon.get("/fx_books?select=id", headers={"Range": "0-1", "Range-Unit": "items"})
    assert r.status_code == 200 and r.headers["content-range"] == "0-1/*" and len(r.json()) == 2
    r = anon.get("/fx_books?select=id&offset=10", headers={"Prefer": "count=exact"})
    assert r.status_code == 416 and r.json()["code"] == "PGRST103"
    r = anon.get("/fx_books?select=id&id=eq.999")
    assert r.headers["content-range"] == "*/*" and r.json() == []


@pytest.mark.parametrize(("query", "range_header", "status", "ids"), [
    ("limit=2", "0-5", 200, [1, 2]),  # the Range header and limit/offset intersect (PostgREST's getRanges)
    ("limit=3", "0-1", 200, [1, 2]),
    ("offset=1", "0-1", 200, [2]),
    ("offset=1&limit=2", "2-10", 200, [3]),
    ("limit=0", "1-2", 200, []),  # limit=0 asks for no rows whatever the header says
    ("offset=3", "0-1", 416, None),  # nothing in common
])
def test_range_header_intersects_limit_and_offset(anon, query: str, range_header: str, status: int, ids) -> None:
    r = anon.get(f"/fx_books?select=id&order=id&{query}", headers={"Range": range_header})
    assert r.status_code == status
    if ids is None:
        assert r.json()["code"] == "PGRST103"
    else:
        assert [row["id"] for row in r.json()] == ids


def test_head_has_headers_only(anon) -> None:
    r = anon.request("HEAD", "/fx_books?select=id", headers={"Prefer": "count=exact"})
    assert r.status_code == 200 and r.content == b"" and r.headers["content-range"] == "0-3/4"


def test_embed_every_cardinality(anon) -> None:
    r = anon.get("/fx_books?select=title,author:fx_authors!author_id(name),fx_isbns(code),"
                 "fx_chapters(title),fx_genres(name)&id=eq.1&fx_chapters.order=order_index.desc&fx_chapters.limit=2")
    assert r.json() == [{
        "title": "A Wizard of Earthsea", "author": {"name": "Ursula"}, "fx_isbns": {"code": "978-0553383041"},
        "fx_chapters": [{"title": "The School for Wizards"}, {"title": "The Shadow"}], "fx_genres": [{"name": "fantasy"}],
    }]
    # the reverse side of the one-to-one is an object too, null when missing
    r = anon.get("/fx_isbns?select=code,fx_books(title)&order=book_id")
    assert r.json()[0] == {"code": "978-0553383041", "fx_books": {"title": "A Wizard of Earthsea"}}


def test_nested_embeds_and_embedded_filters(anon) -> None:
    r = anon.get("/fx_authors?select=name,fx_books!author_id(title,fx_chapters(title))&id=eq.1"
                 "&fx_books.title=eq.A Wizard of Earthsea&fx_books.fx_chapters.order_index=eq.1")
    chapters = [{"title": "Warriors in the Mist"}]
    assert r.json() == [{"name": "Ursula", "fx_books": [{"title": "A Wizard of Earthsea", "fx_chapters": chapters}]}]
    r = anon.get("/fx_authors?select=name,fx_books!author_id(title)&fx_books.or=(pages.lt.200,pages.gt.380)&order=id&limit=2")
    assert r.json() == [{"name": "Ursula", "fx_books": [{"title": "A Wizard of Earthsea"}, {"title": "The Dispossessed"}]},
                        {"name": "Terry", "fx_books": []}]


def test_inner_join_and_null_filters_on_embeds(anon) -> None:
    r = anon.get("/fx_books?select=title,fx_isbns!inner(code)&order=id")
    assert titles(r) == ["A Wizard of Earthsea", "Mort"]
    r = anon.get("/fx_books?select=title,fx_isbns(code)&fx_isbns=is.null&order=id")
    assert titles(r) == ["The Dispossessed", "Guards! Guards!"]
    r = anon.get("/fx_books?select=title,fx_chapters(title)&fx_chapters=not.is.null&order=id")
    assert titles(r) == ["A Wizard of Earthsea", "Mort"]
    r = anon.get("/fx_books?select=title,fx_genres!inner(name)&fx_genres.name=eq.humour")
    assert r.json() == [{"title": "Mort", "fx_genres": [{"name": "humour"}]}]


def test_spread_and_self_reference(anon) -> None:
    r = anon.get("/fx_books?select=title,...fx_authors!author_id(author_name:name)&id=eq.3")
    assert r.json() == [{"title": "Mort", "author_name": "Terry"}]
    # PostgREST's self-reference convention: the FK column names the parent, the table
    # (hinted by that column) the children
    r = anon.get("/fx_employees?select=name,manager:manager_id(name),reports:fx_employees!manager_id(name)&order=id")
    assert r.json() == [{"name": "boss", "manager": None, "reports": [{"name": "worker"}]},
                        {"name": "worker", "manager": {"name": "boss"}, "reports": []}]


def test_embedding_through_a_view(anon) -> None:
    r = anon.get("/fx_book_list?select=title,fx_authors(name)&id=eq.3")
    assert r.json() == [{"title": "Mort", "fx_authors": {"name": "Terry"}}]
    r = anon.get("/fx_authors?select=name,fx_book_list(title)&id=eq.2&fx_book_list.order=id")
    assert r.json() == [{"name": "Terry", "fx_book_list": [{"title": "Mort"}, {"title": "Guards! Guards!"}]}]


def test_aggregates(anon) -> None:
    r = anon.get("/fx_books?select=author_id,count(),pages.sum(),price.max()&order=author_id")
    assert r.json() == [{"author_id": 1, "count": 2, "sum": 570, "max": 12.50},
                        {"author_id": 2, "count": 2, "sum": 531, "max": 8.00}]
    r = anon.get("/fx_authors?select=name,fx_books!author_id(count)&id=eq.1")
    assert r.json() == [{"name": "Ursula", "fx_books": [{"count": 2}]}]


def test_related_order_on_to_one(anon) -> None:
    r = anon.get("/fx_books?select=title,fx_authors!author_id(name)&order=fx_authors(name).asc,id.desc&limit=2")
    assert titles(r) == ["Guards! Guards!", "Mort"]


def test_single_object_and_csv(anon) -> None:
    one = {"Accept": "application/vnd.pgrst.object+json"}
    r = anon.get("/fx_books?select=id,title&id=eq.3", headers=one)
    assert r.status_code == 200 and r.json() == {"id": 3, "title": "Mort"}
    assert r.headers["content-type"].startswith("application/vnd.pgrst.object+json")
    r = anon.get("/fx_books?select=id&id=gt.1", headers=one)
    assert r.status_code == 406 and r.json()["code"] == "PGRST116" and r.json()["details"] == "The result contains 3 rows"
    r = anon.get("/fx_books?select=id,title,price&id=in.(3,4)&order=id", headers={"Accept": "text/csv"})
    assert r.headers["content-type"].startswith("text/csv")
    assert r.text == 'id,title,price\n3,Mort,8.00\n4,"Guards! Guards!",'  # PostgreSQL's text form: blanks quote
    r = anon.get("/fx_books?select=id,price&id=eq.4", headers={"Accept": "application/vnd.pgrst.array+json;nulls=stripped"})
    assert r.json() == [{"id": 4}]


def test_schema_profiles(anon) -> None:
    r = anon.get("/fx_books", headers={"Accept-Profile": "private"})
    assert r.status_code == 406 and r.json() == {"code": "PGRST106", "details": None,
                                                 "hint": "Only the following schemas are exposed: public",
                                                 "message": "Invalid schema: private"}
    assert anon.get("/fx_books?select=id&limit=1", headers={"Accept-Profile": "public"}).status_code == 200


@pytest.mark.parametrize(("prefer", "applied"), [
    ("count=exact", "count=exact"),
    ("handling=lenient, count=exact", "count=exact, handling=lenient"),
    ("handling=strict", "handling=strict"),
    ("tx=rollback, count=planned, handling=lenient", "count=planned, tx=rollback, handling=lenient"),
])
def test_preference_applied_of_reads_and_calls(anon, prefer: str, applied: str) -> None:
    for path in ("/fx_books?select=id", "/rpc/fx_book_titles"):
        assert anon.get(path, headers={"Prefer": prefer}).headers.get("preference-applied") == applied


@pytest.mark.parametrize(("path", "hint"), [
    ("/fx_bookz", "Perhaps you meant the table 'public.fx_books'"),
    ("/fx_author", "Perhaps you meant the table 'public.fx_authors'"),
    ("/zzzzzzzz", None),
])
def test_unknown_table_hint_as_postgrest(anon, path: str, hint: str | None) -> None:
    r = anon.get(path)
    assert (r.status_code, r.json()["code"], r.json()["hint"]) == (404, "PGRST205", hint)
