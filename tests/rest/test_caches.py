"""The REST caches seen from outside: a cached read never answers for another caller (the
statement runs under each caller's role and claims, RLS decides), and a schema reload
drops every cached plan."""

from __future__ import annotations

import time
import uuid

import psycopg

from tests.rest.conftest import Api, user_token

JSON = {"Content-Type": "application/json"}


def test_cached_read_runs_as_each_caller(rest_server, anon, service) -> None:
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    a = Api(rest_server, user_token(rest_server, alice))
    b = Api(rest_server, user_token(rest_server, bob))
    assert a.post("/fx_notes", headers=JSON, json={"body": "cache alice"}).status_code == 201
    assert b.post("/fx_notes", headers=JSON, json={"body": "cache bob"}).status_code == 201
    url = "/fx_notes?select=body&body=like.cache*&order=body"
    # the same URL, interleaved, many times (every call after the first is a cache hit);
    # alice and bob share a role, so only their claims tell them apart
    for _ in range(3):
        assert anon.get(url).json() == []
        assert a.get(url).json() == [{"body": "cache alice"}]
        assert b.get(url).json() == [{"body": "cache bob"}]
        assert service.get(url).json() == [{"body": "cache alice"}, {"body": "cache bob"}]


def test_cached_read_follows_the_token_claims(rest_server) -> None:
    # the same token string always means the same claims; a new token, new claims
    for _ in range(2):
        for uid in (str(uuid.uuid4()), str(uuid.uuid4())):
            api = Api(rest_server, user_token(rest_server, uid))
            assert api.get("/rpc/fx_whoami").json() == {"role": "authenticated", "uid": uid}
            assert api.get("/rpc/fx_whoami").json() == {"role": "authenticated", "uid": uid}


def wait_for(check, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result or time.monotonic() > deadline:
            return result
        time.sleep(0.05)


def test_schema_reload_drops_cached_plans(rest_database, anon) -> None:
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("create table public.fx_cp (id int primary key)")
        conn.execute("create table public.fx_cc (id int primary key,"
                     " cp_id int constraint fx_cc_cp_fk references public.fx_cp(id))")
        conn.execute("grant select on public.fx_cp, public.fx_cc to anon")
        conn.execute("insert into public.fx_cp values (1); insert into public.fx_cc values (10, 1)")
    url = "/fx_cp?select=id,fx_cc(id)"
    assert wait_for(lambda: anon.get(url).status_code == 200)
    assert anon.get(url).json() == [{"id": 1, "fx_cc": [{"id": 10}]}]  # planned, then cached
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("alter table public.fx_cc drop constraint fx_cc_cp_fk")
        conn.execute("notify pgrst, 'reload schema'")
    # without the foreign key there is no relationship: a plan kept across the reload
    # would still join the two tables and answer 200
    r = wait_for(lambda: (lambda resp: resp if resp.status_code == 400 else None)(anon.get(url)))
    assert r is not None and r.json()["code"] == "PGRST200"


def test_cached_write_runs_as_each_caller(rest_server, rest_database, anon) -> None:
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    a = Api(rest_server, user_token(rest_server, alice))
    b = Api(rest_server, user_token(rest_server, bob))
    # one plan for both (same role, same URL, same body shape); the rows belong to each caller
    for i in range(3):
        assert a.post("/fx_notes", headers=JSON, json={"body": f"w alice {i}"}).status_code == 201
        assert b.post("/fx_notes", headers=JSON, json={"body": f"w bob {i}"}).status_code == 201
        r = anon.post("/fx_notes", headers=JSON, json={"body": f"w anon {i}"})
        assert r.status_code == 401 and r.json()["code"] == "42501"
    with psycopg.connect(rest_database) as conn:
        rows = conn.execute("select owner_id::text, count(*) from public.fx_notes where body like 'w %'"
                            " group by 1 order by 2").fetchall()
    assert sorted(rows) == sorted([(alice, 3), (bob, 3)])
    # and an update planned for alice's request changes only what bob may change
    prefer = {**JSON, "Prefer": "return=representation"}
    assert a.patch("/fx_notes?body=like.w*", headers=prefer, json={"is_public": True}).json() != []
    r = b.patch("/fx_notes?body=like.w*", headers=prefer, json={"is_public": True})
    assert {n["owner_id"] for n in r.json()} == {bob}


def test_cached_write_follows_the_body(rest_server, service) -> None:
    prefer = {**JSON, "Prefer": "return=representation"}
    r1 = service.post("/fx_reviews", headers=prefer, json={"book_id": 1, "stars": 5})
    r2 = service.post("/fx_reviews", headers=prefer, json={"book_id": 2, "stars": 3})
    assert (r1.json()[0]["book_id"], r1.json()[0]["stars"]) == (1, 5)
    assert (r2.json()[0]["book_id"], r2.json()[0]["stars"]) == (2, 3)
    # another shape of body (other keys, an array): planned on its own
    r3 = service.post("/fx_reviews", headers=prefer, json=[{"stars": 1, "book_id": 1}, {"stars": 2, "book_id": 2}])
    assert [(x["book_id"], x["stars"]) for x in r3.json()] == [(1, 1), (2, 2)]
    r4 = service.post("/fx_reviews", headers=prefer, json=[{"stars": 1, "book_id": 1}, {"stars": 2}])
    assert r4.status_code == 400 and r4.json()["code"] == "PGRST102"
    bad = service.post("/fx_reviews", headers=JSON, content=b"{not json")
    assert bad.status_code == 400 and bad.json()["code"] == "PGRST102"


def test_cached_rpc_binds_each_body(anon) -> None:
    assert [anon.post("/rpc/fx_add", headers=JSON, json={"a": a, "b": b}).json() for a, b in ((1, 2), (5, 6), (0, 0))] == [3, 11, 0]
    assert anon.post("/rpc/fx_add", headers=JSON, json={"b": 10, "a": 1}).json() == 11
    assert anon.get("/rpc/fx_add?a=2&b=3").json() == 5 and anon.get("/rpc/fx_add?a=2&b=4").json() == 6


def test_schema_reload_drops_cached_calls(rest_database, anon) -> None:
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("create function public.fx_cache_fn(a int) returns int language sql as $$ select a + 1 $$")
    assert wait_for(lambda: anon.post("/rpc/fx_cache_fn", headers=JSON, json={"a": 1}).status_code == 200)
    assert anon.post("/rpc/fx_cache_fn", headers=JSON, json={"a": 2}).json() == 3  # cached
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("drop function public.fx_cache_fn(int)")
        conn.execute("create function public.fx_cache_fn(x int) returns int language sql as $$ select x + 1 $$")
        conn.execute("notify pgrst, 'reload schema'")
    # once reloaded, planned again: no function takes `a` any more (PGRST202); a plan kept
    # across the reload would go on calling the old signature and fail in SQL (42883)
    r = wait_for(lambda: (lambda resp: resp if resp.json().get("code") == "PGRST202" else None)(
        anon.post("/rpc/fx_cache_fn", headers=JSON, json={"a": 2})))
    assert r is not None and r.status_code == 404
    assert anon.post("/rpc/fx_cache_fn", headers=JSON, json={"x": 2}).json() == 3
