"""Output formats and counts as PostgREST 12 builds them in SQL (Query/SqlFragment.hs,
Query.hs): CSV in PostgreSQL's text form of a record, Prefer: count=planned|estimated from the planner's estimate (EXPLAIN of the
count query), and EXPLAIN's media type and settings. Fixture: fixture_writes.sql."""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import psycopg
import pytest

from tests import harness
from tests.rest import fixture
from tests.rest.conftest import Api

CSV = {"Accept": "text/csv"}


class CsvCase(NamedTuple):
    name: str
    path: str
    text: str


CSV_CASES = [
    # quoting (commas, quotes, blanks, parentheses, backslashes, line breaks, the empty string),
    # NULL as nothing, booleans t/f, arrays {..}, jsonb with its spacing, numbers as stored
    CsvCase("every text form", "/fx_w_formats?order=id",
            'id,label,amount,flag,doc,nums,words,day,note\n'
            '1,plain,1.50,t,"{""a"": 1, ""b"": [1, 2]}","{1,2}","{a,""b c""}",2024-01-02,\n'
            '2,"with, comma ""quoted""",-2.00,f,"""text""",{},{},,""\n'
            '3,"back\\\\slash (paren)",,,,,{NULL},,"line\nbreak"'),
    CsvCase("no rows: a lone line break", "/fx_w_formats?id=gt.100", "\n"),
    CsvCase("aliases and casts name the header", "/fx_w_formats?select=key:id,flag::text&id=eq.1", "key,flag\n1,true"),
    CsvCase("an embed is its JSON, quoted", "/fx_books?select=id,fx_authors!author_id(name)&id=eq.1",
            'id,fx_authors\n1,"{""name"":""Ursula""}"'),
    CsvCase("blanks quote a title", "/fx_books?select=id,title,price&id=in.(3,4)&order=id",
            'id,title,price\n3,Mort,8.00\n4,"Guards! Guards!",'),
]


@pytest.mark.parametrize("case", CSV_CASES, ids=[c.name for c in CSV_CASES])
def test_csv(anon: Api, case: CsvCase) -> None:
    r = anon.get(case.path, headers=CSV)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"] == "text/csv; charset=utf-8"
    assert r.text == case.text


def test_csv_of_written_rows(service: Api) -> None:
    r = service.post("/fx_w_formats?select=id,label,flag", json={"id": 9, "label": "a b", "flag": False},
                     headers={**CSV, "Prefer": "return=representation,tx=rollback"})
    assert (r.status_code, r.headers["content-type"], r.text) == (201, "text/csv; charset=utf-8", 'id,label,flag\n9,"a b",f')


# -- counts --------------------------------------------------------------------------------

def planner_rows(database_url: str, query: str) -> int:
    """What PostgreSQL's planner estimates for `query` (EXPLAIN's "Plan Rows")."""
    with psycopg.connect(database_url) as conn:
        plan = conn.execute("explain (format json) " + query).fetchone()[0]  # type: ignore[index]
    return int(plan[0]["Plan"]["Plan Rows"])


class CountCase(NamedTuple):
    name: str
    path: str
    prefer: str
    status: int
    content_range: str  # {planned}: the planner's estimate of `counted`
    counted: str  # the count query, as PostgREST's readPlanToCountQuery


COUNT_CASES = [
    CountCase("planned on statistics", "/fx_w_planned?grp=eq.3&limit=5", "count=planned", 206, "0-4/{planned}",
              "select 1 from public.fx_w_planned where grp = '3'"),
    CountCase("planned, a guess on a table never analyzed", "/fx_w_guess?limit=2", "count=planned", 206, "0-1/{planned}",
              "select 1 from public.fx_w_guess"),
    CountCase("exact, the rows themselves", "/fx_w_guess?limit=2", "count=exact", 206, "0-1/6", ""),
    # without db-max-rows, estimated is the larger of the exact count and the estimate
    CountCase("estimated without max-rows", "/fx_w_guess?limit=2", "count=estimated", 206, "0-1/{planned}",
              "select 1 from public.fx_w_guess"),
    # the whole filtered set is on the page, yet the estimate says more: 206 as in PostgREST
    CountCase("planned and filtered", "/fx_w_guess?id=lt.3", "count=planned", 206, "0-1/{planned}",
              "select 1 from public.fx_w_guess where id < '3'"),
]


@pytest.mark.parametrize("case", COUNT_CASES, ids=[c.name for c in COUNT_CASES])
def test_count(rest_database: str, anon: Api, case: CountCase) -> None:
    r = anon.get(case.path, headers={"Prefer": case.prefer})
    expected = case.content_range.format(planned=planner_rows(rest_database, case.counted)) if case.counted else case.content_range
    assert (r.status_code, r.headers["content-range"]) == (case.status, expected)
    assert r.headers["preference-applied"] == case.prefer


def test_the_guess_is_not_the_count(rest_database: str) -> None:
    """The cases above would not tell planned from exact if the planner knew the table."""
    assert planner_rows(rest_database, "select 1 from public.fx_w_guess") != 6


def test_planned_head(rest_database: str, anon: Api) -> None:
    r = anon.request("HEAD", "/fx_w_planned", headers={"Prefer": "count=planned"})
    planned = planner_rows(rest_database, "select 1 from public.fx_w_planned")
    assert (r.status_code, r.headers["content-range"], r.content) == (200, f"0-999/{planned}", b"")


# -- a server with db-max-rows and db-plan-enabled -----------------------------------------

@pytest.fixture(scope="module")
def tuned(rest_database: str) -> Iterator[Api]:
    server = harness.start_server(rest_database, args=["--no-migrate"],
                                  extra_env={"PGRST_DB_MAX_ROWS": "3", "PGRST_DB_PLAN_ENABLED": "true"})
    fixture.wait_visible(server.url, server.anon_key)
    yield Api(server, server.service_key)
    server.stop()


def test_estimated_is_exact_within_max_rows(rest_database: str, tuned: Api) -> None:
    r = tuned.get("/fx_w_guess?id=lt.3", headers={"Prefer": "count=estimated"})
    assert (r.status_code, r.headers["content-range"]) == (200, "0-1/2")
    # beyond max-rows: the estimate (larger than the max-rows + 1 rows counted)
    r = tuned.get("/fx_w_guess", headers={"Prefer": "count=estimated"})
    planned = planner_rows(rest_database, "select 1 from public.fx_w_guess")
    assert (r.status_code, r.headers["content-range"]) == (206, f"0-2/{planned}")


class PlanCase(NamedTuple):
    name: str
    accept: str
    content_type: str


PLAN_CASES = [
    PlanCase("text by default", "application/vnd.pgrst.plan", "application/vnd.pgrst.plan+text; charset=utf-8"),
    PlanCase("options in PostgREST's order", "application/vnd.pgrst.plan+json; options=settings|analyze",
             "application/vnd.pgrst.plan+json; options=analyze|settings; charset=utf-8"),
    PlanCase("the media type explained", 'application/vnd.pgrst.plan+json; for="text/csv"',
             'application/vnd.pgrst.plan+json; for="text/csv"; charset=utf-8'),
]


@pytest.mark.parametrize("case", PLAN_CASES, ids=[c.name for c in PLAN_CASES])
def test_plan_media_type(tuned: Api, case: PlanCase) -> None:
    r = tuned.get("/fx_w_guess?id=eq.1", headers={"Accept": case.accept})
    assert (r.status_code, r.headers["content-type"]) == (200, case.content_type)


def test_plan_settings_show_the_request_schema_first(tuned: Api) -> None:
    r = tuned.get("/fx_w_guess", headers={"Accept": "application/vnd.pgrst.plan+json; options=settings"})
    # PostgREST's search_path: the request's schema, then db-extra-search-path as configured
    assert r.json()[0]["Settings"] == {"search_path": '"public", "public", "extensions"'}


def test_plan_for_csv_explains_the_csv_statement(tuned: Api) -> None:
    r = tuned.get("/fx_w_guess", headers={"Accept": 'application/vnd.pgrst.plan+json; for="text/csv"; options=verbose'})
    assert "string_agg" in str(r.json()[0]["Plan"]["Output"])
    r = tuned.get("/fx_w_guess", headers={"Accept": "application/vnd.pgrst.plan+text"})
    assert r.text.startswith("Aggregate")
