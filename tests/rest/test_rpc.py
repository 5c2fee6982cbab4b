"""/rest/v1/rpc/<fn>: arguments, return shapes, GET for stable functions, errors, GUCs."""

from __future__ import annotations

JSON = {"Content-Type": "application/json"}


def test_scalar_post_and_get(anon) -> None:
    assert anon.post("/rpc/fx_add", headers=JSON, json={"a": 2, "b": 3}).json() == 5
    assert anon.get("/rpc/fx_add?a=2&b=40").json() == 42
    assert anon.request("HEAD", "/rpc/fx_add?a=1&b=1").status_code == 200


def test_setof_table_with_filters_order_paging_and_embed(anon) -> None:
    r = anon.get("/rpc/fx_books_by_author?author=1&select=title,fx_authors!author_id(name)&order=id.desc&limit=1")
    assert r.json() == [{"title": "The Dispossessed", "fx_authors": {"name": "Ursula"}}]
    r = anon.post("/rpc/fx_book_titles?title=like.*Guards*", headers=JSON, json={"min_pages": 100})
    assert r.json() == [{"id": 4, "title": "Guards! Guards!"}]
    r = anon.post("/rpc/fx_book_titles", headers={**JSON, "Prefer": "count=exact"}, json={})
    assert r.headers["content-range"] == "0-3/4" and len(r.json()) == 4


def test_single_composite_is_an_object(anon) -> None:
    assert anon.get("/rpc/fx_first_book?select=id,title").json() == {"id": 1, "title": "A Wizard of Earthsea"}


def test_single_unnamed_json_and_named_json(anon) -> None:
    assert anon.post("/rpc/fx_echo", headers=JSON, json={"payload": {"x": [1, 2]}}).json() == {"x": [1, 2]}


def test_void_and_volatile(anon, service) -> None:
    assert anon.post("/rpc/fx_noop", headers=JSON, json={}).status_code == 204
    r = anon.get("/rpc/fx_bump_pages?book=4")  # GET runs read-only, as PostgREST
    assert r.status_code == 405 and r.json()["code"] == "25006"
    before = service.get("/fx_books?select=pages&id=eq.4").json()[0]["pages"]
    assert service.post("/rpc/fx_bump_pages", headers=JSON, json={"book": 4, "by": 2}).json() == before + 2


def test_response_status_and_headers_gucs(anon) -> None:
    r = anon.get("/rpc/fx_teapot")
    assert r.status_code == 418 and r.headers["x-brew"] == "tea" and r.json() == "short and stout"


def test_raised_errors(anon) -> None:
    r = anon.get("/rpc/fx_fail?kind=raise")
    assert r.status_code == 400 and r.json() == {"code": "P0001", "details": "some detail", "hint": "a hint", "message": "plain failure"}
    r = anon.get("/rpc/fx_fail?kind=pt")
    assert r.status_code == 402 and r.json()["message"] == "payment required"
    r = anon.get("/rpc/fx_fail?kind=pgrst")
    assert r.status_code == 409 and r.headers["x-custom"] == "yes"
    assert r.json() == {"code": "123", "message": "custom", "details": "d", "hint": "h"}


def test_overloads_and_missing_functions(anon) -> None:
    assert anon.get("/rpc/fx_overloaded?a=1").json() == "one"
    assert anon.get("/rpc/fx_overloaded?a=1&b=2").json() == "two"
    r = anon.post("/rpc/fx_add", headers=JSON, json={"x": 1})
    assert r.status_code == 404
    body = r.json()
    assert body["code"] == "PGRST202"
    assert body["message"] == "Could not find the function public.fx_add(x) in the schema cache"
    assert body["hint"] is None  # PostgREST's fuzzy match: (x) shares no letter pair with (a, b)
    r = anon.post("/rpc/fx_add", headers=JSON, json={"a": 1})
    assert r.json()["hint"] == "Perhaps you meant to call the function public.fx_add(a, b)"
    r = anon.get("/rpc/fx_ad")
    assert r.json()["hint"] == "Perhaps you meant to call the function public.fx_add"


def test_security_definer_sees_past_rls(rest_server, service, anon) -> None:
    from tests.rest.conftest import Api, user_token
    uid = "00000000-0000-0000-0000-00000000beef"
    user = Api(rest_server, user_token(rest_server, uid))
    assert user.post("/fx_notes", headers=JSON, json={"body": "private", "owner_id": uid}).status_code == 201
    assert anon.get("/rpc/fx_count_visible_notes").json() == 0
    assert anon.get("/rpc/fx_count_all_notes").json() >= 1


def test_csv_rows_as_a_table_read_gives_them(anon) -> None:
    csv = {"Accept": "text/csv"}
    read = anon.get("/fx_books?author_id=eq.2&select=id,title&order=id", headers=csv)
    call = anon.get("/rpc/fx_books_by_author?author=2&select=id,title", headers=csv)
    assert call.status_code == 200 and call.headers["content-type"] == "text/csv; charset=utf-8"
    assert call.text == read.text and call.text.startswith("id,title\n3,")
    one = anon.get("/rpc/fx_first_book?select=id,title", headers=csv)
    assert one.text == anon.get("/fx_books?id=eq.1&select=id,title", headers=csv).text
