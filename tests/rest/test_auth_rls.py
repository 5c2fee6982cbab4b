"""Roles from the JWT, RLS per role, JWT errors, schema reload after DDL."""

from __future__ import annotations

import time
import uuid

import httpx
import psycopg

from tests.rest.conftest import Api, user_token

JSON = {"Content-Type": "application/json"}


def test_same_query_per_role(rest_server, anon, service) -> None:
    alice, bob = str(uuid.uuid4()), str(uuid.uuid4())
    a = Api(rest_server, user_token(rest_server, alice))
    b = Api(rest_server, user_token(rest_server, bob))
    assert a.post("/fx_notes", headers=JSON, json={"body": "alice secret"}).status_code == 201
    assert a.post("/fx_notes", headers=JSON, json={"body": "alice public", "is_public": True}).status_code == 201
    assert b.post("/fx_notes", headers=JSON, json={"body": "bob secret"}).status_code == 201

    def bodies(api: Api) -> set[str]:
        return {n["body"] for n in api.get("/fx_notes?select=body&body=like.*secret*,or=(body.like.*public*)").json()} if False else \
            {n["body"] for n in api.get("/fx_notes?select=body").json()}

    assert {"alice public"} <= bodies(anon) and not {"alice secret", "bob secret"} & bodies(anon)
    assert {"alice secret", "alice public"} <= bodies(a) and "bob secret" not in bodies(a)
    assert {"alice secret", "alice public", "bob secret"} <= bodies(service)
    # writes are checked too: bob cannot touch alice's note, nor write as her
    r = b.patch("/fx_notes?body=eq.alice secret", headers={**JSON, "Prefer": "return=representation"}, json={"body": "x"})
    assert r.status_code == 200 and r.json() == []
    r = b.post("/fx_notes", headers=JSON, json={"body": "forged", "owner_id": alice})
    assert r.status_code == 403 and r.json()["code"] == "42501"
    r = anon.post("/fx_notes", headers=JSON, json={"body": "anon"})
    assert r.status_code == 401 and r.json()["code"] == "42501" and r.headers["www-authenticate"] == "Bearer"


def test_claims_reach_sql(rest_server) -> None:
    uid = str(uuid.uuid4())
    user = Api(rest_server, user_token(rest_server, uid, email="x@example.com"))
    assert user.get("/rpc/fx_whoami").json() == {"role": "authenticated", "uid": uid}
    r = httpx.get(f"{rest_server.url}/rest/v1/rpc/fx_whoami")  # neither apikey nor Authorization: anon
    assert r.json() == {"role": "anon", "uid": None}


def test_invalid_and_expired_jwt(rest_server) -> None:
    r = httpx.get(f"{rest_server.url}/rest/v1/fx_books", headers={"Authorization": "Bearer not-a-jwt"})
    assert r.status_code == 401 and r.json()["code"] == "PGRST301" and "www-authenticate" in r.headers
    expired = user_token(rest_server, exp=int(time.time()) - 10)
    r = httpx.get(f"{rest_server.url}/rest/v1/fx_books", headers={"Authorization": f"Bearer {expired}"})
    assert r.status_code == 401 and r.json()["code"] == "PGRST303" and r.json()["message"] == "JWT expired"


def test_ddl_is_visible_without_restart(rest_server, rest_database, anon) -> None:
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("create table public.fx_late (id int primary key, label text)")
        conn.execute("insert into public.fx_late values (1, 'late')")
    fixture_deadline = time.monotonic() + 10
    while time.monotonic() < fixture_deadline:
        r = anon.get("/fx_late?select=label")
        if r.status_code == 200:
            break
        time.sleep(0.05)
    assert r.json() == [{"label": "late"}]
    with psycopg.connect(rest_database, autocommit=True) as conn:
        conn.execute("alter table public.fx_late add column extra text default 'x'")
        conn.execute("notify pgrst, 'reload schema'")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "extra" not in anon.get("/").json()["definitions"]["fx_late"]["properties"]:
        time.sleep(0.05)
    assert "extra" in anon.get("/").json()["definitions"]["fx_late"]["properties"]


def test_openapi_document(anon) -> None:
    doc = anon.get("/").json()
    assert doc["swagger"] == "2.0"
    assert "/fx_books" in doc["paths"] and "/rpc/fx_add" in doc["paths"]
    assert doc["definitions"]["fx_books"]["properties"]["id"]["type"] == "integer"
    assert "get" not in doc["paths"]["/rpc/fx_bump_pages"]
