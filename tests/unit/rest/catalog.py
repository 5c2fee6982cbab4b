"""A small schema cache built by hand, for planning and composing without a database:

    authors(id pk, name)          books(id pk, title, author_id -> authors, pages, meta jsonb)
    tags(id pk, name)             book_tags(book_id -> books, tag_id -> tags)   (a junction)
    books_by(author int) returns setof books     add(a int, b int default 1) returns int
    echo(json) returns json                      touch() returns void
"""

from __future__ import annotations

from server.rest.schema_cache import Column, Function, Junction, Param, Relationship, SchemaCache, Table

S = "public"


def _table(name: str, columns: list[tuple[str, str, str | None]], pk: list[str]) -> Table:
    cols = {n: Column(n, t, t, True, default, i + 1) for i, (n, t, default) in enumerate(columns)}
    return Table(S, name, "r", cols, pk)


def catalog() -> SchemaCache:
    cache = SchemaCache()
    authors = _table("authors", [("id", "integer", "nextval('authors_id_seq'::regclass)"), ("name", "text", None)], ["id"])
    books = _table("books", [("id", "integer", "nextval('books_id_seq'::regclass)"), ("title", "text", None),
                             ("author_id", "integer", None), ("pages", "integer", "0"), ("meta", "jsonb", None)], ["id"])
    tags = _table("tags", [("id", "integer", None), ("name", "text", None)], ["id"])
    book_tags = _table("book_tags", [("book_id", "integer", None), ("tag_id", "integer", None)], ["book_id", "tag_id"])
    for t in (authors, books, tags, book_tags):
        cache.tables[t.qi] = t
    cache.relationships = {
        books.qi: [Relationship(books.qi, authors.qi, "m2o", "books_author_id_fkey", [("author_id", "id")]),
                   Relationship(books.qi, book_tags.qi, "o2m", "book_tags_book_id_fkey", [("id", "book_id")]),
                   Relationship(books.qi, tags.qi, "m2m", "book_tags_book_id_fkey", [],
                                Junction(book_tags.qi, "book_tags_book_id_fkey", "book_tags_tag_id_fkey",
                                         [("id", "book_id")], [("tag_id", "id")]))],
        authors.qi: [Relationship(authors.qi, books.qi, "o2m", "books_author_id_fkey", [("id", "author_id")])],
    }
    cache.functions = {
        (S, "books_by"): [Function(S, "books_by", [Param("author", "integer", "i")], [], "SETOF books", True, books.qi,
                                   True, "s", False)],
        (S, "add"): [Function(S, "add", [Param("a", "integer", "i"), Param("b", "integer", "i", True)], [], "integer",
                              False, None, False, "i", False)],
        (S, "echo"): [Function(S, "echo", [Param("", "json", "i")], [], "json", False, None, False, "i", False)],
        (S, "touch"): [Function(S, "touch", [], [], "void", False, None, False, "v", False)],
    }
    return cache
