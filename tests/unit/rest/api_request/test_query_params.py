"""server/rest/api_request/query_params.py: the query string read as PostgREST reads it, without a database."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.rest import errors
from server.rest.api_request.query_params import parse_order, parse_query, parse_select
from server.rest.api_request.types import ColumnItem, EmbedItem, Field, Filter, Logic


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


@pytest.mark.parametrize("query", ["id=xx.1", "id=eq", "select=a(", "order=a.sideways", "or=a.eq", "id=is.maybe", "id=in.1,2",
                                   "select=a.avg(", "id=eq(foo).1", "id=", "=eq.1", "or=(a.eq.1", "select= "])
def test_malformed_queries_are_pgrst100(query: str) -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_query(query)
    assert exc.value.status == 400 and exc.value.code == "PGRST100"


def test_what_postgrest_reads_without_complaint() -> None:
    # limit/offset are read with Haskell's readMaybe: what is no number is ignored
    assert parse_query("limit=x&offset=1.5&a.limit=١").limit == {}  # noqa: RUF001 - a non-ASCII digit on purpose
    assert parse_query("limit= (0x10) &offset=(-0)").limit == {(): 16}
    # the tree is parsed with its operator glued in front: `or=a.eq.1` is the filter `ora.eq.1`
    [[tree]] = parse_query("or=a.eq.1").logic.values()
    assert [(c.field.name, c.op, c.value) for c in tree.children if isinstance(c, Filter)] == [("ora", "eq", "1")]
    # no parser requires the end of its text: what follows a complete parse is ignored
    assert [i.field.name for i in parse_select("a,b)junk") if isinstance(i, ColumnItem)] == ["a", "b"]
    assert _one_filter("id!x=is.nullable").value == "null" and _one_filter("id=in.(1,2)x").value == ["1", "2"]
    assert parse_query("on_conflict=a, b)x&columns=c").on_conflict == ["a", "b"]
    # `&` and `;` both separate parameters; `?a` (no `=`) is no parameter at all
    assert parse_query("id=eq.1;select=id&name").select == parse_select("id")
    assert parse_query("id=eq.1;select=id&name").filters[()][0].value == "1"
    # the first select, columns and on_conflict count
    assert parse_query("select=a&select=b").select == parse_select("a")
    # a GET /rpc argument is any value no operator was begun in; `not.`, `in.` and `is.` begin one
    qp = parse_query("a=1&b=eqx&c.d=2&e=eq.3", is_rpc_read=True)
    assert qp.rpc_args == {"a": ["1"], "b": ["eqx"], "d": ["2"]} and qp.filters[()][0].field.name == "e"
    for query in ("a=not.1", "a=in.x", "a=is.maybe"):
        with pytest.raises(errors.ApiError):
            parse_query(query, is_rpc_read=True)


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


# -- the grammar, piece by piece (PostgREST's QueryParams.hs doctests and spec) -------------

def _one_filter(query: str) -> Filter:
    [flt] = parse_query(query).filters[()]
    return flt


def test_select_items_in_detail() -> None:
    [star] = parse_select("*")
    assert star == ColumnItem(Field("*"))
    renamed, cast, both = parse_select("myId:id,id::text,myId:id::text")
    assert (renamed.alias, renamed.field.name, both.alias, both.cast, cast.cast) == ("myId", "id", "myId", "text", "text")
    [arrows] = parse_select("alias:name->jsonpath->>0::cast")
    assert arrows.alias == "alias" and arrows.cast == "cast" and arrows.field.default_alias == "0"
    assert [(op.arrow, op.key, op.is_index) for op in arrows.field.json_path] == [("->", "jsonpath", False), ("->>", "0", True)]
    assert parse_select("data->-1")[0].field.json_path[0].is_index
    # names: dashes, dollars, spaces inside, quotes for reserved characters
    names = parse_select('field-with_sep,a$num$, padded ,":arr->ow::cast","(inside,parens)","a.dotted"," spaced "')
    assert [i.field.name for i in names] == ["field-with_sep", "a$num$", "padded", ":arr->ow::cast", "(inside,parens)", "a.dotted",
                                             " spaced "]
    # aggregates: count() alone, col.agg(), casts before and after
    count, total, avg = parse_select("c:count()::int,x:id::text.sum()::int,price.avg()")
    assert (count.field.name, count.aggregate, count.alias, count.aggregate_cast) == ("*", "count", "c", "int")
    assert (total.field.name, total.cast, total.aggregate, total.aggregate_cast, total.alias) == ("id", "text", "sum", "int", "x")
    assert (avg.aggregate, [a.aggregate for a in parse_select("a.max(),a.min(),a.count()")]) == ("avg", ["max", "min", "count"])


def test_names_may_hold_blanks() -> None:
    # QuerySpec "will select and filter a column that has spaces"; pFieldName doctest "identifier with spaces"
    qp = parse_query("select=Just A Server Model&Just A Server Model=like.*91*")
    assert qp.select[0].field.name == "Just A Server Model" and qp.filters[()][0].field.name == "Just A Server Model"


def test_embeds_in_detail() -> None:
    embeds = parse_select("rel(*),alias:rel!hint(*),rel!inner(*),rel!hint!inner(*),alias:rel!inner!hint(*),rel!left(id),"
                          "...spread!fk!inner(a,b),empty(),nested(*,deeper(id))")
    assert all(isinstance(e, EmbedItem) for e in embeds)
    assert [(e.name, e.alias, e.hint, e.join, e.spread) for e in embeds] == [
        ("rel", None, None, None, False), ("rel", "alias", "hint", None, False), ("rel", None, None, "inner", False),
        ("rel", None, "hint", "inner", False), ("rel", "alias", "hint", "inner", False), ("rel", None, None, "left", False),
        ("spread", None, "fk", "inner", True), ("empty", None, None, None, False), ("nested", None, None, None, False)]
    assert embeds[7].items == [] and isinstance(embeds[8].items[1], EmbedItem)
    for bad in ("rel->jsonpath(*)", "alias:...rel(*)", "rel(", "rel(a", "rel!left_x(*)", "rel(a,"):
        with pytest.raises(errors.ApiError) as exc:
            parse_select(bad)
        assert exc.value.code == "PGRST100", bad


@pytest.mark.parametrize("op", ["eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch", "isdistinct",
                                "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj"])
def test_every_single_value_operator_and_its_negation(op: str) -> None:
    assert _one_filter(f"c={op}.v.a.l").value == "v.a.l"  # the value is everything after the operator's dot
    flt = _one_filter(f"c=not.{op}.x")
    assert (flt.op, flt.negate, flt.value) == (op, True, "x")


def test_filter_values() -> None:
    assert _one_filter("c=eq.").value == ""
    for word in ("null", "NULL", "not_null", "NoT_NuLl", "true", "FAlSe", "UnKnOwN"):
        assert _one_filter(f"c=is.{word}").value == word.lower()
    assert _one_filter("c=not.is.not_null").negate
    for op, lang in (("fts", None), ("plfts", "german"), ("phfts", "english"), ("wfts", "french")):
        flt = _one_filter(f"t={op}({lang}).The Fat Rats" if lang else f"t={op}.The Fat Rats")
        assert (flt.op, flt.language, flt.value) == (op, lang, "The Fat Rats")
    flt = _one_filter("t=not.wfts(english).impossible or fun")
    assert (flt.negate, flt.language) == (True, "english")
    for op in ("eq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch"):
        for q in ("any", "all"):
            flt = _one_filter(f"c={op}({q}).{{a,b}}")
            assert (flt.op, flt.quantifier, flt.value) == (op, q, ["a", "b"])
    assert _one_filter("c=not.eq(all).{1}").negate
    # json paths and embed paths on the key
    flt = _one_filter("data->a->>b=eq.1")
    assert [op.key for op in flt.field.json_path] == ["a", "b"]
    assert parse_query("projects.tasks.name=like.Design*").filters[("projects", "tasks")][0].field.name == "name"


def test_in_lists() -> None:
    assert _one_filter("id=in.(1,3,5)").value == ["1", "3", "5"]
    assert _one_filter("id=in.()").value == []
    assert _one_filter('n=in.("Hebdon, John","Williams, Mary")').value == ["Hebdon, John", "Williams, Mary"]
    assert _one_filter('n=in.(David White,"Hebdon, John")').value == ["David White", "Hebdon, John"]
    assert _one_filter('n=in.("Double O Seven(007)")').value == ["Double O Seven(007)"]
    assert _one_filter(r'n=in.("Double\"Quote\"McGraw\"")').value == ['Double"Quote"McGraw"']
    assert _one_filter(r'n=in.("\\")').value == ["\\"]
    assert _one_filter(r'n=in.("D\a\vid W\h\ite")').value == ["David White"]
    assert _one_filter(r"n=in.(/\Slash/\Beast/\)").value == ["/\\Slash/\\Beast/\\"]
    assert _one_filter("id=not.in.(1,2)").negate


# Unquoted elements keep their quotes (pListElement: a quoted value only when it is the whole element).
@pytest.mark.parametrize(("query", "values"), [('n=in.(")', ['"']), ('n=in.(Double"Quote"McGraw")', ['Double"Quote"McGraw"'])])
def test_in_list_elements_with_stray_quotes(query: str, values: list[str]) -> None:
    assert _one_filter(query).value == values


def test_in_list_of_blanks_is_empty() -> None:
    assert _one_filter("id=in.(    )").value == _one_filter("id=in.()").value


def test_logic_trees() -> None:
    qp = parse_query("or=(and(name.eq.entity 2,id.eq.2),not.and(name.eq.entity 1,id.eq.1))&not.or=(id.eq.1)"
                     "&child.grand.and=(id.in.(1,2),arr.cs.{1,2,3},t.plfts(german).Art Spass,arr.isdistinct.{1,2})")
    tree, negated = qp.logic[()]
    assert (tree.op, tree.negate, negated.op, negated.negate) == ("or", False, "or", True)
    first, second = tree.children
    assert isinstance(first, Logic) and isinstance(second, Logic) and second.negate and not first.negate
    assert [(c.field.name, c.op, c.value) for c in first.children if isinstance(c, Filter)] == [("name", "eq", "entity 2"),
                                                                                               ("id", "eq", "2")]
    deep = qp.logic[("child", "grand")][0].children
    assert [(c.op, c.value, c.language) for c in deep if isinstance(c, Filter)] == [
        ("in", ["1", "2"], None), ("cs", "{1,2,3}", None), ("plfts", "Art Spass", "german"), ("isdistinct", "{1,2}", None)]
    # quoted values holding commas and parentheses; names starting with and/or
    assert len(parse_query("or=( id.eq.1 , id.eq.2 )").logic[()][0].children) == 2
    quoted = parse_query('or=(name.like."*ity,4*",name.ilike."*ITY,5)")').logic[()][0].children
    assert [c.value for c in quoted if isinstance(c, Filter)] == ["*ity,4*", "*ITY,5)"]
    names = parse_query("or=(and_starting_col.eq.smth, or_starting_col.eq.smth)").logic[()][0].children
    assert [c.field.name for c in names if isinstance(c, Filter)] == ["and_starting_col", "or_starting_col"]
    negated_filters = parse_query("and=(arr.not.cs.{1,2,3},id.not.in.(1,3),name.not.is.null)").logic[()][0].children
    assert all(isinstance(c, Filter) and c.negate for c in negated_filters)


def test_logic_trees_allow_blanks_everywhere() -> None:
    # AndOrParamsSpec "allows whitespace"
    tree = parse_query("and=( and ( id.in.( 1, 2, 3 ) , id.eq.3 ) , or ( id.eq.2 , id.eq.3 ) )").logic[()][0]
    inner = tree.children[0]
    # blanks inside an in list are kept but for those lexeme '(' eats: ["1", " 2", " 3 "], as PostgREST passes them
    assert isinstance(inner, Logic) and isinstance(inner.children[0], Filter) and inner.children[0].value == ["1", " 2", " 3 "]


def test_logic_tree_ignores_text_after_its_closing_parenthesis() -> None:
    # AndOrParamsSpec "can handle eq and neq": /entities?and=(id.eq.1,id.neq.2))
    last = parse_query("and=(id.eq.1,id.neq.2))").logic[()][0].children[-1]
    assert isinstance(last, Filter) and last.value == "2"


def test_order_terms() -> None:
    terms = parse_order("name.desc.nullsfirst,json_col->key.asc.nullslast,a.nullsfirst,clients(json_col->key).desc.nullsfirst,id")
    assert [(t.field.name, t.direction, t.nulls, t.relation) for t in terms] == [
        ("name", "desc", "first", None), ("json_col", "asc", "last", None), ("a", None, "first", None),
        ("json_col", "desc", "first", "clients"), ("id", None, None, None)]
    assert terms[1].field.json_path[0].key == "key" and terms[3].field.json_path[0].key == "key"
    assert parse_query("projects.tasks.order=name.desc").order[("projects", "tasks")][0].direction == "desc"


def test_limit_offset_and_reserved_names() -> None:
    qp = parse_query("limit=3&offset=2&projects.limit=2&projects.tasks.offset=1&on_conflict=a,b&columns=x,%22y%22")
    assert (qp.limit, qp.offset) == ({(): 3, ("projects",): 2}, {(): 2, ("projects", "tasks"): 1})
    assert (qp.on_conflict, qp.columns) == (["a", "b"], ["x", "y"])
    assert parse_query("select=").select == parse_query("").select  # an empty root select is every column
    assert parse_query("limit=0").limit[()] == 0


# PostgREST 12-14 (ApiRequest.getRanges): the top level's offset..offset+limit-1 meets 0..inf. A negative
# offset counts from 0 (shortening the limit); a range left empty is 416 PGRST103, but for limit=0.
# Embedded limits and offsets reach PostgreSQL as they are (2201W, 2201X: a 400).
@pytest.mark.parametrize(("query", "limit", "offset"), [
    ("offset=-4", {}, {(): 0}), ("limit=4&offset=-2", {(): 2}, {(): 0}), ("limit=0&offset=-3", {(): 0}, {(): 0}),
    ("limit=3&offset=2", {(): 3}, {(): 2}), ("a.limit=-1&a.offset=-4", {("a",): -1}, {("a",): -4})])
def test_negative_limit_and_offset(query: str, limit: dict[tuple[str, ...], int], offset: dict[tuple[str, ...], int]) -> None:
    qp = parse_query(query)
    assert (qp.limit, qp.offset) == (limit, offset)


@pytest.mark.parametrize("query", ["limit=-1", "limit=-1&offset=-4", "limit=1&offset=-5", "limit=-2&offset=5"])
def test_negative_top_level_limit_is_416(query: str) -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_query(query)
    assert (exc.value.status, exc.value.code, exc.value.message, exc.value.details) == (
        416, "PGRST103", "Requested range not satisfiable", "Limit should be greater than or equal to zero.")


# -- PGRST100 exactly as PostgREST words it --------------------------------------------------
# Messages and details from PostgREST's Parsec parsers, taken from its doctests
# (src/PostgREST/ApiRequest/QueryParams.hs) and spec tests (QuerySpec, AndOrParamsSpec):
# the column counts in the parsed text (for logic trees: "or" or "and" followed by the value),
# `unexpected "x"` comes from a keyword the input failed to spell, `unexpected 'x'` from a
# character class, and expectations are listed as Parsec lists them.
PGRST100 = [
    ("id=0", '"failed to parse filter (0)" (line 1, column 1)', 'unexpected "0" expecting "not" or operator (eq, gt, ...)'),
    ("a.b=noop.0", '"failed to parse filter (noop.0)" (line 1, column 1)', 'unexpected "o" expecting "not" or operator (eq, gt, ...)'),
    ("id=val", '"failed to parse filter (val)" (line 1, column 1)', 'unexpected "v" expecting "not" or operator (eq, gt, ...)'),
    ("id=fts().value", '"failed to parse filter (fts().value)" (line 1, column 5)', 'unexpected ")" expecting operator (eq, gt, ...)'),
    ("id=eq().value", '"failed to parse filter (eq().value)" (line 1, column 4)', 'unexpected ")" expecting operator (eq, gt, ...)'),
    ("id=is().value", '"failed to parse filter (is().value)" (line 1, column 3)', 'unexpected "(" expecting operator (eq, gt, ...)'),
    ("id=in().value", '"failed to parse filter (in().value)" (line 1, column 3)', 'unexpected "(" expecting operator (eq, gt, ...)'),
    ("order=id.asc.nullslasttt", '"failed to parse order (id.asc.nullslasttt)" (line 1, column 17)',
     "unexpected 't' expecting \",\" or end of input"),
    ("order=id.ac", '"failed to parse order (id.ac)" (line 1, column 4)',
     'unexpected "c" expecting "asc", "desc", "nullsfirst" or "nullslast"'),
    ("order=id.descc", '"failed to parse order (id.descc)" (line 1, column 8)',
     "unexpected 'c' expecting delimiter (.), \",\" or end of input"),
    ("order=id.nulsfist", '"failed to parse order (id.nulsfist)" (line 1, column 4)',
     'unexpected "n" expecting "asc", "desc", "nullsfirst" or "nullslast"'),
    ("order=id.nullslasttt", '"failed to parse order (id.nullslasttt)" (line 1, column 13)',
     "unexpected 't' expecting \",\" or end of input"),
    ("order=id.smth34", '"failed to parse order (id.smth34)" (line 1, column 4)',
     'unexpected "s" expecting "asc", "desc", "nullsfirst" or "nullslast"'),
    ("order=id.asc.nlsfst", '"failed to parse order (id.asc.nlsfst)" (line 1, column 8)',
     'unexpected "l" expecting "nullsfirst" or "nullslast"'),
    ("order=id.asc.smth34", '"failed to parse order (id.asc.smth34)" (line 1, column 8)',
     'unexpected "s" expecting "nullsfirst" or "nullslast"'),
    ("order=clients(name,id)", '"failed to parse order (clients(name,id))" (line 1, column 8)',
     "unexpected '(' expecting letter, digit, \"-\", \"->>\", \"->\", delimiter (.), \",\" or end of input"),
    ("or=()", '"failed to parse logic tree (())" (line 1, column 4)',
     'unexpected ")" expecting field name (* or [a..z0..9_$]), negation operator (not) or logic operator (and, or)'),
    ("or=(id.in.1,2,id.eq.3)", '"failed to parse logic tree ((id.in.1,2,id.eq.3))" (line 1, column 10)',
     'unexpected "1" expecting "("'),
    ("and=(ord(id.eq.1,id.eq.1),id.eq.2)", '"failed to parse logic tree ((ord(id.eq.1,id.eq.1),id.eq.2))" (line 1, column 7)',
     'unexpected "d" expecting "("'),
    ("or=(id.eq.1,not.xor(id.eq.2,id.eq.3))", '"failed to parse logic tree ((id.eq.1,not.xor(id.eq.2,id.eq.3)))" (line 1, column 16)',
     'unexpected "x" expecting logic operator (and, or)'),
    ("select=id,clients(name[])", '"failed to parse select parameter (id,clients(name[]))" (line 1, column 16)',
     "unexpected '[' expecting letter, digit, \"-\", \"->>\", \"->\", \"::\", \".\", \")\", \",\" or end of input"),
    ("select=data->>-78xy", '"failed to parse select parameter (data->>-78xy)" (line 1, column 11)',
     "unexpected 'x' expecting digit, \"->\", \"::\", \".\", \",\" or end of input"),
    ("select=name::", '"failed to parse select parameter (name::)" (line 1, column 7)',
     "unexpected end of input expecting letter or digit"),
]


@pytest.mark.parametrize(("query", "message", "details"), PGRST100)
def test_pgrst100_words_as_postgrest(query: str, message: str, details: str) -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_query(query)
    assert (exc.value.status, exc.value.code, exc.value.message, exc.value.details, exc.value.hint) == (
        400, "PGRST100", message, details, None)


@pytest.mark.parametrize("select", ["id,clients(name[])", "data->>-78xy", "prt.*,u.email"])
def test_select_refuses_what_postgrest_refuses(select: str) -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_select(select)
    assert exc.value.message.startswith(f'"failed to parse select parameter ({select})"')


# -- the direct readings of plain filters give what the grammar gives ------------------------

def _outcome(read: Callable[[], object]) -> object:
    try:
        return read()
    except errors.ApiError as exc:
        return exc.status, exc.code, exc.message, exc.details


def _by_grammar(value: str) -> object:
    from server.rest.api_request import bounds, grammar

    expr = grammar._run(grammar._op_expr, "filter", value)
    try:
        return grammar._filter(Field("k"), expr)
    except bounds._Bound as exc:
        raise errors.parse_error("filter", value, 1, exc.details) from None


_filter_alphabet = st.sampled_from(["not.", "eq", "neq", "gt", "gte", "lt", "like", "ilike", "imatch", "in", "is", "isdistinct",
                                    "fts", "plfts", "cs", "nxl", "adj", "(", ")", ",", ".", '"', "\\", "null", "NULL", "not_null",
                                    "true", "unknown", " ", "\t", "a", "1", "{", "}", "any", "all", "é"])


@settings(max_examples=600, deadline=None)
@given(st.lists(_filter_alphabet, max_size=12).map("".join))
def test_plain_filters_read_as_the_grammar_reads_them(value: str) -> None:
    from server.rest.api_request import query_params

    assert _outcome(lambda: query_params._parse_filter("k", value, False)[2]) == _outcome(lambda: _by_grammar(value))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["a", "B", "1", "_", "$", ".", "-", ">", " ", '"', "é", "("]), max_size=10).map("".join))
def test_plain_keys_read_as_the_grammar_reads_them(key: str) -> None:
    from server.rest.api_request import grammar, query_params

    assert _outcome(lambda: query_params._key_path(key)) == _outcome(lambda: grammar._run(grammar._tree_path, "tree path", key))


def test_messages_show_characters_as_haskell_does() -> None:
    with pytest.raises(errors.ApiError) as exc:
        parse_query("order=id.é")
    assert exc.value.details == 'unexpected "\\233" expecting "asc", "desc", "nullsfirst" or "nullslast"'
    with pytest.raises(errors.ApiError) as exc:
        parse_query("select=%22a%0Ab%22!")  # a newline in a quoted name: Parsec counts lines
    assert (exc.value.message, exc.value.details) == ('"failed to parse select parameter ("a\nb"!)" (line 2, column 3)',
                                                      'unexpected \'!\' expecting "->>", "->", "::", ".", ")", "," or end of input')
