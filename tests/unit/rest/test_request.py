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


_alphabet = st.sampled_from(list("abc.,()!:*->{}\"=&%eqinotrsl0123 ") + ["eq.", "not.", "or=(", "select=", "order=", "in.("])


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
