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
