"""Golden SQL of each plan shape: an HTTP request parsed, planned against a small schema
cache (catalog.py) and composed, compared with the statement it must be. A change to the
composed SQL shows here first, with the statement to review.

ROWS( stands for the head every row-returning statement shares (sql.wrap): total,
page_total, the JSON body and the response settings, read from the inner query.
"""

from __future__ import annotations

import asyncio
from typing import NamedTuple

import pytest

from server.rest import sql
from server.rest.api_request import parse
from server.rest.api_request.types import ApiRequest
from server.rest.caches import StatementCache, prepare
from server.rest.plan import Plan, PlanConfig, plan
from tests.unit.rest.catalog import catalog

CONFIG = PlanConfig(max_rows=None, tx_end="commit", aggregates_enabled=True)
HEAD = ("SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce(json_agg(_pgrst_t), '[]')::text"
        " AS body, nullif(current_setting('response.headers', true), '') AS headers, nullif(current_setting("
        "'response.status', true), '') AS status FROM (")


class Case(NamedTuple):
    name: str
    method: str
    url: str
    body: bytes
    headers: dict[str, str]
    statement: str
    values: dict[str, object]
    body_param: str | None  # the parameter holding the request body (refilled on reuse)


def planned(method: str, url: str, body: bytes = b"", headers: dict[str, str] | None = None) -> Plan:
    path, _, query = url.partition("?")
    api_request = asyncio.run(parse(method, path, query, headers or {}, body, ("public",), True))
    return plan(api_request, catalog(), CONFIG)


CASES = [
    Case('read: columns and a filter', 'GET', '/books?select=id,title&id=eq.1', b'', {},
         'ROWS(SELECT "books"."id" AS "id", "books"."title" AS "title" FROM "public"."books" AS "books" WHERE "books"."id" = %(p0)s) AS _pgrst_t',
         {'p0': '1'}, None),
    Case('read: to-one and many-to-many embeds, embedded order, page', 'GET', '/books?select=title,authors(name),tags(name)&tags.order=name&limit=2&offset=1', b'', {},
         'ROWS(SELECT "books"."title" AS "title", "authors_1"."body" AS "authors", COALESCE("tags_2"."body", \'[]\') AS "tags" FROM "public"."books" AS "books" LEFT JOIN LATERAL (SELECT row_to_json("authors_1") AS "body" FROM (SELECT "authors_1"."name" AS "name" FROM "public"."authors" AS "authors_1" WHERE "authors_1"."id" = "books"."author_id") AS "authors_1") AS "authors_1" ON TRUE LEFT JOIN LATERAL (SELECT json_agg("tags_2") AS "body" FROM (SELECT "tags_2"."name" AS "name" FROM "public"."tags" AS "tags_2", "public"."book_tags" AS "tags_2_j" WHERE "tags_2_j"."book_id" = "books"."id" AND "tags_2_j"."tag_id" = "tags_2"."id" ORDER BY "tags_2"."name") AS "tags_2") AS "tags_2" ON TRUE LIMIT %(p0)s OFFSET %(p1)s) AS _pgrst_t',
         {'p0': 2, 'p1': 1}, None),
    Case('read: spread of a to-one embed, filtered inside', 'GET', '/books?select=title,...authors(author:name)&authors.name=like.A*', b'', {},
         'ROWS(SELECT "books"."title" AS "title", "authors_1"."author" AS "author" FROM "public"."books" AS "books" LEFT JOIN LATERAL (SELECT "authors_1"."name" AS "author" FROM "public"."authors" AS "authors_1" WHERE "authors_1"."id" = "books"."author_id" AND "authors_1"."name" LIKE %(p0)s) AS "authors_1" ON TRUE) AS _pgrst_t',
         {'p0': 'A%'}, None),
    Case('read: aggregates grouped by the plain columns, a logic tree with a JSON path', 'GET', '/books?select=author_id,pages.sum(),count()&or=(pages.gt.10,meta->>lang.eq.en)', b'', {},
         'ROWS(SELECT "books"."author_id" AS "author_id", sum("books"."pages") AS "sum", count(*) AS "count" FROM "public"."books" AS "books" WHERE ("books"."pages" > %(p0)s OR "books"."meta" ->> %(p1)s = %(p2)s) GROUP BY 1) AS _pgrst_t',
         {'p0': '10', 'p1': 'lang', 'p2': 'en'}, None),
    Case('read: exact count', 'GET', '/authors?select=name&order=name.desc.nullslast', b'', {'prefer': 'count=exact'},
         'SELECT (SELECT pg_catalog.count(*) FROM (SELECT 1 FROM "public"."authors" AS "authors") AS _pgrst_c) AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce(json_agg(_pgrst_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status FROM (SELECT "authors"."name" AS "name" FROM "public"."authors" AS "authors" ORDER BY "authors"."name" DESC NULLS LAST) AS _pgrst_t',
         {}, None),
    Case('create: missing=default, returned rows, count', 'POST', '/books?columns=title,pages', b'{"title":"x"}', {'prefer': 'missing=default,return=representation,count=exact'},
         'WITH "books" AS (INSERT INTO "public"."books" AS "books" ("title", "pages") SELECT _pgrst_r."title", CASE WHEN _pgrst_e.j::jsonb ? %(p0)s THEN _pgrst_r."pages" ELSE 0 END FROM (SELECT %(p1)s::json AS j) AS _pgrst_b, json_array_elements(CASE WHEN json_typeof(_pgrst_b.j) = \'array\' THEN _pgrst_b.j ELSE json_build_array(_pgrst_b.j) END) AS _pgrst_e(j), LATERAL json_populate_record(NULL::"public"."books", _pgrst_e.j) AS _pgrst_r RETURNING "books".*) SELECT (SELECT pg_catalog.count(*) FROM "books") AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce(json_agg(_pgrst_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status FROM (SELECT "books".* FROM "books") AS _pgrst_t',
         {'p0': 'pages', 'p1': '{"title":"x"}'}, 'p1'),
    Case('create: upsert on a conflict target, counting the rows it inserts', 'POST', '/books?on_conflict=id', b'[{"id":1,"title":"x"}]', {'prefer': 'resolution=merge-duplicates'},
         'WITH "books" AS (INSERT INTO "public"."books" AS "books" ("id", "title") SELECT _pgrst_r."id", _pgrst_r."title" FROM (SELECT %(p0)s::json AS j) AS _pgrst_b, json_array_elements(CASE WHEN json_typeof(_pgrst_b.j) = \'array\' THEN _pgrst_b.j ELSE json_build_array(_pgrst_b.j) END) AS _pgrst_e(j), LATERAL json_populate_record(NULL::"public"."books", _pgrst_e.j) AS _pgrst_r WHERE set_config(\'pgrst.inserted\', (coalesce(nullif(current_setting(\'pgrst.inserted\', true), \'\')::int, 0) + 1)::text, true) <> \'0\' ON CONFLICT ("id") DO UPDATE SET "id" = EXCLUDED."id", "title" = EXCLUDED."title" WHERE set_config(\'pgrst.inserted\', (coalesce(nullif(current_setting(\'pgrst.inserted\', true), \'\')::int, 0) - 1)::text, true) <> \'-1\' RETURNING "books".*) SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce(json_agg(_pgrst_t), \'[]\')::text AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status, nullif(current_setting(\'pgrst.inserted\', true), \'\')::int AS inserted FROM (SELECT 1 FROM "books") AS _pgrst_t',
         {'p0': '[{"id":1,"title":"x"}]'}, 'p0'),
    Case('update: limited, the rows picked by order and limit', 'PATCH', '/books?id=gt.0&order=id&limit=2', b'{"title":"y"}', {},
         'WITH "books" AS (UPDATE "public"."books" AS "books" SET "title" = _pgrst_r."title" FROM (SELECT * FROM json_populate_record(NULL::"public"."books", %(p2)s::json)) AS _pgrst_r, (SELECT "books"."id" FROM "public"."books" AS "books" WHERE "books"."id" > %(p0)s ORDER BY "books"."id" LIMIT %(p1)s) AS _pgrst_a WHERE "books"."id" = _pgrst_a."id" RETURNING "books".*) ROWS(SELECT 1 FROM "books") AS _pgrst_t',
         {'p0': '0', 'p1': 2, 'p2': '{"title":"y"}'}, 'p2'),
    Case('delete: limited and offset', 'DELETE', '/books?order=id.desc&limit=1&offset=1', b'', {},
         'WITH "books" AS (DELETE FROM "public"."books" AS "books" USING (SELECT "books"."id" FROM "public"."books" AS "books" ORDER BY "books"."id" DESC LIMIT %(p0)s OFFSET %(p1)s) AS _pgrst_a WHERE "books"."id" = _pgrst_a."id" RETURNING "books".*) ROWS(SELECT 1 FROM "books") AS _pgrst_t',
         {'p0': 1, 'p1': 1}, None),
    Case('update: returned rows with an embed', 'PATCH', '/books?id=eq.1&select=title,authors(name)', b'{"title":"y"}', {'prefer': 'return=representation'},
         'WITH "books" AS (UPDATE "public"."books" AS "books" SET "title" = _pgrst_r."title" FROM (SELECT * FROM json_populate_record(NULL::"public"."books", %(p1)s::json)) AS _pgrst_r WHERE "books"."id" = %(p0)s RETURNING "books".*) ROWS(SELECT "books"."title" AS "title", "authors_1"."body" AS "authors" FROM "books" LEFT JOIN LATERAL (SELECT row_to_json("authors_1") AS "body" FROM (SELECT "authors_1"."name" AS "name" FROM "public"."authors" AS "authors_1" WHERE "authors_1"."id" = "books"."author_id") AS "authors_1") AS "authors_1" ON TRUE) AS _pgrst_t',
         {'p0': '1', 'p1': '{"title":"y"}'}, 'p1'),
    Case('update: nothing to set', 'PATCH', '/books?id=eq.1', b'{}', {},
         'WITH "books" AS (SELECT "books".* FROM "public"."books" AS "books" WHERE false) ROWS(SELECT 1 FROM "books") AS _pgrst_t',
         {}, None),
    Case('delete: an in list', 'DELETE', '/books?id=in.(1,2)', b'', {},
         'WITH "books" AS (DELETE FROM "public"."books" AS "books" WHERE "books"."id" = ANY(%(p0)s) RETURNING "books".*) ROWS(SELECT 1 FROM "books") AS _pgrst_t',
         {'p0': '{"1","2"}'}, None),
    Case('call: named arguments from the body', 'POST', '/rpc/add', b'{"a":1}', {},
         'WITH _pgrst_call AS (SELECT "public"."add"("a" := _pgrst_body."a") AS pgrst_scalar FROM (SELECT _pgrst_a.* FROM (SELECT %(p0)s::json AS j) AS _pgrst_j, json_to_recordset(CASE WHEN json_typeof(_pgrst_j.j) = \'array\' THEN _pgrst_j.j ELSE json_build_array(_pgrst_j.j) END) AS _pgrst_a("a" integer) LIMIT 1) AS _pgrst_body) SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce((json_agg(_pgrst_t.pgrst_scalar) -> 0)::text, \'null\') AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status FROM (SELECT "add".pgrst_scalar AS pgrst_scalar FROM _pgrst_call AS "add") AS _pgrst_t',
         {'p0': '{"a":1}'}, 'p0'),
    Case('call: a set of rows, arguments and filters from the query string', 'GET', '/rpc/books_by?author=1&select=title&pages=gt.5', b'', {},
         'WITH _pgrst_call AS (SELECT _pgrst_fn.* FROM "public"."books_by"("author" := %(p0)s::integer) AS _pgrst_fn) ROWS(SELECT "books_by"."title" AS "title" FROM _pgrst_call AS "books_by" WHERE "books_by"."pages" > %(p1)s) AS _pgrst_t',
         {'p0': '1', 'p1': '5'}, None),
    Case('call: the body as the one unnamed json argument', 'POST', '/rpc/echo', b'{"x":[1,2]}', {},
         'WITH _pgrst_call AS (SELECT "public"."echo"(%(p0)s::json) AS pgrst_scalar) SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce((json_agg(_pgrst_t.pgrst_scalar) -> 0)::text, \'null\') AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status FROM (SELECT "echo".pgrst_scalar AS pgrst_scalar FROM _pgrst_call AS "echo") AS _pgrst_t',
         {'p0': '{"x":[1,2]}'}, 'p0'),
    Case('call: a void function', 'POST', '/rpc/touch', b'', {},
         'WITH _pgrst_call AS MATERIALIZED (SELECT "public"."touch"() AS pgrst_scalar) SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce((json_agg(_pgrst_t.pgrst_scalar) -> 0)::text, \'null\') AS body, nullif(current_setting(\'response.headers\', true), \'\') AS headers, nullif(current_setting(\'response.status\', true), \'\') AS status FROM (SELECT NULL AS pgrst_scalar FROM _pgrst_call AS "touch") AS _pgrst_t',
         {}, None),
    Case('explain: text plan with options', 'GET', '/books?select=id', b'', {'accept': 'application/vnd.pgrst.plan+text; options=analyze|verbose'},
         'EXPLAIN (FORMAT TEXT, ANALYZE, VERBOSE) ROWS(SELECT "books"."id" AS "id" FROM "public"."books" AS "books") AS _pgrst_t',
         {}, None),

]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_golden_sql(case: Case) -> None:
    query = sql.compose(planned(case.method, case.url, case.body, case.headers))
    assert query.statement.as_string(None).replace(HEAD, "ROWS(") == case.statement
    assert query.params.values == case.values
    assert query.params.body == case.body_param


def parsed(method: str, url: str, body: bytes) -> ApiRequest:
    path, _, query = url.partition("?")
    return asyncio.run(parse(method, path, query, {}, body, ("public",), True))


@pytest.mark.parametrize(("method", "url", "first", "later", "sent"), [
    ("POST", "/books?columns=title", b'{"title":"a"}', b'{"title":"b"}', b'{"title":"b"}'),  # JSON: bound as sent
    ("PATCH", "/books?id=eq.1", b'{"title": "a"}', b'{"title": "b"}', b'{"title":"b"}'),  # re-encoded
    ("POST", "/rpc/add", b'{"a": 1}', b'{"a": 2}', b'{"a": 2}'),  # the arguments: the body as sent, as PostgREST
])
def test_a_cached_statement_binds_each_request_body(method: str, url: str, first: bytes, later: bytes, sent: bytes) -> None:
    api_request = parsed(method, url, first)
    planned_first = plan(api_request, catalog(), CONFIG)
    cache = StatementCache()
    cache.put("key", api_request.body_shape, prepare(planned_first, sql.compose(planned_first)))
    hit = cache.get("key", parsed(method, url, later).body_shape)
    assert hit is not None and hit.values[hit.body_slot] is None
    assert hit.bind(parsed(method, url, later))[hit.body_slot] == sent
