"""server/rest/request.py: the query-string grammar, without a database."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rest import errors
from server.rest.request import (ColumnItem, EmbedItem, Filter, Logic, parse_accept, parse_order, parse_prefer,
                                 parse_query, parse_select)


def test_select_tree() -> None:
    items = parse_select("id,name:full_name,pages::text,meta->a->>b,author:users!fk!inner(id),...p(n),count(),x.sum()")
    assert [type(i) for i in items] == [ColumnItem] * 4 + [EmbedItem, EmbedItem, ColumnItem, ColumnItem]
    assert items[1].alias == "name" and items[1].field.name == "full_name"
    assert items[2].cast == "text"
    assert [op.arrow for op in items[3].field.json_path] == ["->", "->>"] and items[3].field.default_alias == "b"
    assert (items[4].alias, items[4].name, items[4].hint, items[4].join) == ("author", "users", "fk", "inner")
    assert items[5].spread and items[6].aggregate == "count" and items[7].aggregate == "sum"


def test_filters_and_logic() -> None:
    qp = parse_query('id=eq.5&name=in.(a,"b,c")&t=fts(english).cat&x=like(any).{a*,b*}&or=(a.eq.1,and(b.gt.2,c.is.null))'
                     "&not.and=(d.eq.1)&c.order=i.desc.nullslast&c.limit=2&limit=10")
    f = {x.field.name: x for x in qp.filters[()]}
    assert f["id"] == Filter(f["id"].field, "eq", "5")
    assert f["name"].value == ["a", "b,c"]
    assert f["t"].language == "english" and f["x"].quantifier == "any" and f["x"].value == ["a*", "b*"]
    ors, nand = qp.logic[()]
    assert ors.op == "or" and isinstance(ors.children[1], Logic) and nand.negate
    assert qp.order[("c",)][0].direction == "desc" and qp.order[("c",)][0].nulls == "last"
    assert qp.limit == {("c",): 2, (): 10}


def test_rpc_reads_split_arguments_from_filters() -> None:
    qp = parse_query("a=1&b=eq.2", is_rpc_read=True)
    assert qp.rpc_args == {"a": ["1"]} and qp.filters[()][0].field.name == "b"


@pytest.mark.parametrize("query", ["id=xx.1", "id=eq", "select=a(", "order=a.sideways", "limit=x", "or=a.eq.1",
                                   "id=is.maybe", "id=in.1,2", "select=a.avg(", "id=eq(foo).1"])
def test_malformed_queries_are_pgrst100(query: str) -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_query(query)
    assert exc.value.status == 400 and exc.value.code == "PGRST100"


def test_headers() -> None:
    p = parse_prefer(["return=representation, count=exact,resolution=merge-duplicates, tx=rollback, max-affected=3"])
    assert (p.return_, p.count, p.resolution, p.tx, p.max_affected) == ("representation", "exact", "merge-duplicates", "rollback", 3)
    with pytest.raises(errors.ApiError) as exc:
        parse_prefer(["handling=strict, bogus=1"])
    assert exc.value.code == "PGRST122"
    assert parse_accept("application/vnd.pgrst.object+json", False).kind == "object"
    assert parse_accept("text/csv;q=0.5, application/json", False).kind == "json"
    with pytest.raises(errors.ApiError) as exc:
        parse_accept("application/vnd.pgrst.plan+json", False)
    assert exc.value.status == 406 and exc.value.code == "PGRST107"
    assert parse_order("a->b.asc,c")[0].field.json_path[0].key == "b"


_alphabet = st.sampled_from([*list('abc.,()!:*->{}"=&%eqinotrsl0123 '), "eq.", "not.", "or=(", "select=", "order=", "in.("])


@settings(max_examples=400, deadline=None)
@given(st.lists(_alphabet, max_size=30).map("".join))
def test_fuzz_query_string_gives_a_result_or_pgrst1xx(query: str) -> None:
    try:
        parse_query(query)
        parse_query(query, is_rpc_read=True)
    except errors.ApiError as exc:
        assert exc.code.startswith("PGRST1") and 400 <= exc.status < 500


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_select_and_order(text: str) -> None:
    for parse in (parse_select, parse_order):
        try:
            parse(text)
        except errors.ApiError as exc:
            assert exc.code == "PGRST100"


# -- bounds: nesting depth and numbers (hostile URLs are 4xx, never a crash) ---------------

def test_nesting_is_bounded() -> None:
    from server.rest.request import MAX_JSON_PATH, MAX_NESTING

    parse_query("or=(" + "or(" * (MAX_NESTING - 1) + "a.eq.1" + ")" * MAX_NESTING)
    parse_select("a(" * MAX_NESTING + "b" + ")" * MAX_NESTING)
    parse_query("a" + "->b" * MAX_JSON_PATH + "=eq.1")
    for query in ("or=(" + "and(" * MAX_NESTING + "a.eq.1" + ")" * (MAX_NESTING + 1),
                  "or=(" + "or(" * 5000 + "a.eq.1" + ")" * 5001,
                  "select=" + "a(" * (MAX_NESTING + 1) + "b" + ")" * (MAX_NESTING + 1),
                  "select=" + "a(" * 5000 + "b" + ")" * 5000,
                  "a" + "->b" * (MAX_JSON_PATH + 1) + "=eq.1",
                  "select=a" + "->>b" * 5000):
        with pytest.raises(errors.ApiError) as exc:
            parse_query(query)
        assert exc.value.status == 400 and exc.value.code == "PGRST100"


def test_numbers_are_bounded() -> None:
    from server.rest.request import MAX_BIGINT, bounded_int, parse_range

    assert parse_query(f"limit={MAX_BIGINT}&a.offset=007").limit[()] == MAX_BIGINT
    assert parse_query("a.offset=007").offset[("a",)] == 7
    for query in (f"limit={MAX_BIGINT + 1}", "offset=" + "9" * 5000, "a.b.limit=" + "1" * 25, "a->" + "9" * 5000 + "=eq.1",
                  "a->2147483648=eq.1", "limit=١"):  # noqa: RUF001 - a non-ASCII digit on purpose
        with pytest.raises(errors.ApiError) as exc:
            parse_query(query)
        assert exc.value.status == 400 and exc.value.code == "PGRST100", query
    assert parse_query("a->-2147483647=eq.1").filters[()][0].field.json_path[0].is_index
    for header in ("0-" + "9" * 5000, "9" * 20 + "-"):
        with pytest.raises(errors.ApiError) as exc:
            parse_range(header)
        assert exc.value.status == 416 and exc.value.code == "PGRST103"
    assert parse_range(f"0-{MAX_BIGINT - 1}") == (0, MAX_BIGINT)
    for value in ("9" * 5000, "²", "-1", "", " 1"):
        assert bounded_int(value, MAX_BIGINT) is None
    assert parse_prefer(["max-affected=" + "9" * 5000]).max_affected is None
    assert parse_prefer(["max-affected=²"]).invalid == ["max-affected=²"]


_deep_alphabet = st.sampled_from(["or(", "and(", "not.or(", ")", ",", "a.eq.1", "a->b", "->", "->>", "9" * 30, "(", "x(", "!inner"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_deep_alphabet, max_size=400).map("".join), st.sampled_from(["or=(", "select=", "order=", "limit=", "x.limit=", "a"]))
def test_fuzz_deep_and_numeric_inputs_give_a_result_or_pgrst1xx(text: str, prefix: str) -> None:
    try:
        parse_query(prefix + text + ("=eq.1" if prefix == "a" else ""))
    except errors.ApiError as exc:
        assert exc.code.startswith("PGRST1") and 400 <= exc.status < 500


def test_csv_body_errors_are_400() -> None:
    from server.rest.request import parse_csv_body

    with pytest.raises(errors.ApiError) as exc:
        parse_csv_body(b"a\n" + b"x" * 200_000 + b"\n")
    assert exc.value.status == 400 and exc.value.code == "PGRST102"
