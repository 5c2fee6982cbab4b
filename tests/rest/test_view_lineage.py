"""The schema cache's view lineage (server/rest/schema_cache.py): which base column each view
column shows, read from the view's rewrite rule, and the relationships and primary keys views
inherit from it, as PostgREST's `allViewsKeyDependencies` finds them.

PostgREST reads only the outermost query's target list (`view_definition->0->'targetList'`),
whose `resorigtbl`/`resorigcol` PostgreSQL fills in through subqueries and CTEs in FROM; a
column computed by an expression, a set operation or a scalar subquery has no origin. Views
on views are followed down to the table.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import psycopg
import pytest

from server.rest import schema_cache
from server.rest.schema_cache import SchemaCache
from tests import harness

SCHEMA = """
create schema lin;
create schema linp;

create table lin.authors (id int primary key, name text);
create table lin.books (id int primary key, title text, author_id int references lin.authors);
create table lin.reviews (id int primary key, book_id int references lin.books, stars int);

create view lin.book_renamed as select id as book_id, title as label, author_id as writer from lin.books;
create view lin.author_names as select id as author_key, name from lin.authors;
create view lin.book_with_author as
  select b.id, b.title, a.name as author_name, b.author_id from lin.books b join lin.authors a on a.id = b.author_id;
create view lin.book_renamed_again as select book_id as bid, writer as w from lin.book_renamed;
create view lin.from_subquery as select s.x as writer, s.id from (select author_id as x, id from lin.books) s;
create view lin.from_cte as with c as (select id, author_id as a from lin.books) select id, a as writer from c;
create view lin.authors_with_book as
  select a.id, a.name, (select b.id from lin.books b where b.author_id = a.id order by b.id limit 1) as first_book
  from lin.authors a;
create view lin.reviewed_books as select title, author_id from lin.books where id in (select book_id from lin.reviews);
create view lin.all_books as select id, author_id from lin.books union all select id, author_id from lin.books;
create view lin.book_exprs as select id + 0 as id, upper(title) as title, author_id::bigint as author_id from lin.books;
create view lin."odd names" as select id as "Book Id", author_id as ":writer,}" from lin.books;
create view lin.renamed_later as select id, author_id from lin.books;
alter view lin.renamed_later rename column author_id to writer;
create materialized view lin.book_mat as select id, author_id from lin.books;

-- tables outside the exposed schema, shown through views
create table linp.pauthors (id int primary key, name text);
create table linp.pbooks (id int primary key, title text, author_id int references linp.pauthors);
create view lin.pauthors_v as select id, name from linp.pauthors;
create view lin.pbooks_v as select id, title, author_id from linp.pbooks;
"""


@pytest.fixture(scope="module")
def cache(owner_url: str) -> Iterator[SchemaCache]:
    name = harness.unique_name("lineage")
    url = harness.create_database(owner_url, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute(SCHEMA)

        async def load() -> SchemaCache:
            async with await psycopg.AsyncConnection.connect(url, autocommit=True) as conn:
                return await schema_cache.load(conn, ("lin",))

        yield asyncio.run(load())
    finally:
        harness.drop_database(owner_url, name)


def rels(cache: SchemaCache, table: str) -> set[tuple[str, str, tuple[tuple[str, str], ...]]]:
    """(foreign table, cardinality, column pairs) of every non-m2m relationship of lin.<table>."""
    return {(r.foreign_table[1], r.cardinality, tuple(r.columns))
            for r in cache.relationships.get(("lin", table), []) if r.cardinality != "m2m"}


def pk(cache: SchemaCache, table: str) -> list[str]:
    return cache.tables[("lin", table)].pk


def test_a_view_renaming_columns_inherits_keys_under_its_names(cache: SchemaCache) -> None:
    assert ("authors", "m2o", (("writer", "id"),)) in rels(cache, "book_renamed")
    assert ("reviews", "o2m", (("book_id", "book_id"),)) in rels(cache, "book_renamed")
    assert ("book_renamed", "o2m", (("id", "writer"),)) in rels(cache, "authors")
    assert ("book_renamed", "m2o", (("book_id", "book_id"),)) in rels(cache, "reviews")
    # view to view, both sides renamed
    assert ("author_names", "m2o", (("writer", "author_key"),)) in rels(cache, "book_renamed")
    assert ("book_renamed", "o2m", (("author_key", "writer"),)) in rels(cache, "author_names")
    assert pk(cache, "book_renamed") == ["book_id"] and pk(cache, "author_names") == ["author_key"]


def test_a_view_over_a_join_keeps_each_columns_own_table(cache: SchemaCache) -> None:
    assert rels(cache, "book_with_author") >= {("authors", "m2o", (("author_id", "id"),)),
                                               ("reviews", "o2m", (("id", "book_id"),))}
    assert pk(cache, "book_with_author") == ["id"]


def test_views_on_views_are_followed_to_the_table(cache: SchemaCache) -> None:
    assert rels(cache, "book_renamed_again") >= {("authors", "m2o", (("w", "id"),)),
                                                 ("author_names", "m2o", (("w", "author_key"),))}
    assert pk(cache, "book_renamed_again") == ["bid"]


@pytest.mark.parametrize("view", ["from_subquery", "from_cte"])
def test_subqueries_and_ctes_in_from_pass_their_origin_on(cache: SchemaCache, view: str) -> None:
    assert rels(cache, view) == {("authors", "m2o", (("writer", "id"),)), ("author_names", "m2o", (("writer", "author_key"),)),
                                 ("authors_with_book", "m2o", (("writer", "id"),)), ("reviews", "o2m", (("id", "book_id"),))}
    assert pk(cache, view) == ["id"]


def test_a_scalar_subquery_in_the_select_list_has_no_origin(cache: SchemaCache) -> None:
    # `id` is authors.id, whatever the subquery beside it selects
    assert rels(cache, "authors_with_book") == {("books", "o2m", (("id", "author_id"),)),
                                                ("book_renamed", "o2m", (("id", "writer"),)),
                                                ("book_with_author", "o2m", (("id", "author_id"),)),
                                                ("from_subquery", "o2m", (("id", "writer"),)),
                                                ("from_cte", "o2m", (("id", "writer"),)),
                                                ("reviewed_books", "o2m", (("id", "author_id"),)),
                                                ("renamed_later", "o2m", (("id", "writer"),)),
                                                ("book_mat", "o2m", (("id", "author_id"),)),
                                                ("book_renamed_again", "o2m", (("id", "w"),)),
                                                ("odd names", "o2m", (("id", ":writer,}"),))}
    assert pk(cache, "authors_with_book") == ["id"]


def test_a_subquery_in_where_lends_no_columns(cache: SchemaCache) -> None:
    assert rels(cache, "reviewed_books") == {("authors", "m2o", (("author_id", "id"),)),
                                             ("author_names", "m2o", (("author_id", "author_key"),)),
                                             ("authors_with_book", "m2o", (("author_id", "id"),))}
    assert pk(cache, "reviewed_books") == []


@pytest.mark.parametrize("view", ["all_books", "book_exprs"])
def test_set_operations_and_expressions_have_no_lineage(cache: SchemaCache, view: str) -> None:
    assert rels(cache, view) == set()
    assert pk(cache, view) == []


def test_columns_are_named_as_the_view_names_them_now(cache: SchemaCache) -> None:
    assert ("authors", "m2o", ((":writer,}", "id"),)) in rels(cache, "odd names")
    assert pk(cache, "odd names") == ["Book Id"]
    assert ("authors", "m2o", (("writer", "id"),)) in rels(cache, "renamed_later")


def test_materialized_views_have_lineage(cache: SchemaCache) -> None:
    assert ("authors", "m2o", (("author_id", "id"),)) in rels(cache, "book_mat")
    assert pk(cache, "book_mat") == ["id"]


def test_every_relationship_names_existing_columns(cache: SchemaCache) -> None:
    for table_rels in cache.relationships.values():
        for r in table_rels:
            columns, foreign_columns = cache.tables[r.table].columns, cache.tables[r.foreign_table].columns
            for a, b in r.columns:
                assert a in columns and b in foreign_columns, (r.table, r.foreign_table, r.columns)
    for table in cache.tables.values():
        assert all(c in table.columns for c in table.pk), (table.name, table.pk)


def test_views_of_tables_outside_the_exposed_schema_relate_like_the_tables(cache: SchemaCache) -> None:
    # PostgREST: "detects parent relations when having many views of a private table"
    assert ("pauthors_v", "m2o", (("author_id", "id"),)) in rels(cache, "pbooks_v")
    assert pk(cache, "pbooks_v") == ["id"]
