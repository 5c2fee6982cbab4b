"""server/rest/api_request/readers.py: the direct readings of select, order, logic trees, names and in-lists
give exactly what the Parsec grammar (server/rest/parsec.py) gives, or leave the text to it.

Texts are generated valid (from the grammar's forms, blanks, quotes and keywords included) and
invalid (the same with a stray token inserted, and from loose alphabets): for each, the public
reading (direct, else the grammar) and the grammar alone give the same value or the same PGRST100.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from server.rest import errors
from server.rest import parsec as P
from server.rest.api_request import grammar, query_params, readers, types


def _outcome(read: Callable[[], object]) -> object:
    try:
        return read()
    except errors.ApiError as exc:
        return exc.status, exc.code, exc.message, exc.details


def _grammar(parser: P.Parser, where: str, text: str) -> object:
    return _outcome(lambda: grammar._run(parser, where, text))


# -- generated texts -------------------------------------------------------------------------

blank = st.sampled_from(["", "", "", " ", "  ", "\t"])
ident = st.sampled_from(["id", "name", "a b", "x_1", "$y", "é", "a-b", "a - b", "count", "left", "inner", "sum", "or", "and", "not",
                         "in", "is", "²x", "A", "a-", "leftover"])
quoted = st.sampled_from(['"q"', '"a,b"', '"x\\"y"', '"(p)"', '" s "', '"a.b"', '"\\\\"', '"open'])
name = st.one_of(ident, ident, quoted, st.builds(lambda b, n, c: b + n + c, blank, ident, blank))
json_key = st.sampled_from(["k", "0", "-1", "12", "x y", "a!b", '"q"', "1x", "k-j", "99999999999", " 3", "-x", "k\t"])
json_path = st.lists(st.tuples(st.sampled_from(["->", "->>"]), json_key), max_size=3).map(lambda steps: "".join(a + k for a, k in steps))
cast = st.sampled_from(["", "", "::text", "::int ", "::a b", "::", ":x"])
aggregate = st.sampled_from(["", "", ".sum()", ".count()", ".max()", ".avg()", ".min()", ".foo()", ".sum"])
alias = st.one_of(st.just(""), st.just(""), name.map(lambda n: n + ":"))
column = st.builds(lambda *parts: "".join(parts), alias, name, json_path, cast, aggregate, cast)
special = st.sampled_from(["*", "count()", "c:count()::int", "count()::x", "count ()", "* "])
embed_params = st.lists(st.sampled_from(["!inner", "!left", "!fk", "!hint_x", '!"h"', "!leftx", "!", "! x"]), max_size=3).map("".join)
separator = st.sampled_from([",", ",", ", ", " ,", "\t,", ",\t"])


def _joined(items: list[str], seps: list[str]) -> str:
    return "".join(item + sep for item, sep in zip(items, seps, strict=False))[:-len(seps[len(items) - 1])] if items else ""


def _forest(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    embed = st.builds(lambda a, spread, n, p, c: ("..." if spread else a) + n + p + "(" + c + ")", alias, st.booleans(), name,
                      embed_params, children)
    return st.builds(_joined, st.lists(st.one_of(column, column, special, embed), max_size=4),
                     st.lists(separator, min_size=4, max_size=4))


select = st.recursive(st.just(""), _forest, max_leaves=6)
direction = st.sampled_from(["", "", ".asc", ".desc", ".ascx", "."])
nulls = st.sampled_from(["", "", ".nullsfirst", ".nullslast", ".nulls"])
order_term = st.one_of(st.builds(lambda *parts: "".join(parts), blank, name, json_path, direction, nulls),
                       st.builds(lambda n, b, f, d, u: f"{n}({b}{f}{b}){d}{u}", name, blank, name, direction, nulls))
order = st.lists(order_term, min_size=1, max_size=4).map(",".join)
logic_value = st.sampled_from(["1", "", "a b", '"x,y"', '"q"x', "{1,2}", "{1,2", "(x)", '"x\\"y"', "é", '"open', "{a}b"])
in_list = st.lists(st.sampled_from(["1", "", " 2", '"a,b"', '"a"b', "x y", '"', '"p(q)"']), max_size=3).map(
    lambda v: "(" + ",".join(v) + ")")
operation = st.one_of(
    st.builds(lambda o, v: f"{o}.{v}", st.sampled_from(["eq", "neq", "gt", "gte", "like", "isdistinct", "cs", "adj", "foo", "eqx", "in"]),
              logic_value),
    st.builds(lambda o, q, v: o + q + "." + v, st.sampled_from(["eq", "like", "neq"]), st.sampled_from(["(any)", "(all)", "(x)"]),
              st.sampled_from(["{a,b}", "{}", "x", '{"a,b"}'])),
    st.builds(lambda o, lang, v: o + lang + "." + v, st.sampled_from(["fts", "plfts", "wfts"]),
              st.sampled_from(["", "(english)", "(a b)", "()", "(x", "(²)"]), logic_value),
    st.builds(lambda b, v: "in." + b + v + b, blank, in_list),
    st.builds(lambda w: "is." + w, st.sampled_from(["null", "NULL", "not_null", "TrUe", "false", "unknown", "maybe", "nul"])))
logic_filter = st.builds(lambda *parts: "".join(parts), blank, name, json_path, blank, st.just("."), st.sampled_from(["", "", "not."]),
                         operation)


def _tree(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.builds(lambda neg, op, b, kids, seps, b2: f"{neg}{op}{b}({b2}{_joined(kids, seps)}){b2}",
                     st.sampled_from(["", "", "not."]), st.sampled_from(["and", "or", "ord"]), blank,
                     st.lists(children, min_size=1, max_size=3),
                     st.lists(st.sampled_from([",", ", ", " ,", " , "]), min_size=3, max_size=3), blank)


logic_tree = st.recursive(logic_filter, _tree, max_leaves=6)
names = st.lists(name, min_size=1, max_size=4).map(",".join)
stray = st.sampled_from(["", "", ")", ",", " ", "x", "(", "\t", ")x", "!", ":", ".", '"', "->", "::", "*"])


def _spoilt(text: str, where: int, inserted: str, appended: str) -> str:
    """text with a stray token inserted somewhere and another appended (often ""): invalid texts
    close to valid ones, and trailing text the grammar ignores."""
    where %= len(text) + 1
    return text[:where] + inserted + text[where:] + appended


def _loose(alphabet: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.sampled_from(alphabet), max_size=25).map("".join)


loose_select = _loose(["a", "b_1", "$x", " ", "\t", ",", "(", ")", "!", "inner", "left", ":", "::", "int", "->", "->>", "0", "-1", "-",
                       "*", "...", "count()", "count", ".", "sum()", '"', '"q,"', "\\", "é", "²", "x y", "()", ">", "{", "}"])
loose_order = _loose(["a", "b", " ", "\t", ",", "(", ")", ".asc", ".desc", ".nullsfirst", ".nullslast", ".", "->", "->>", "0", "-", '"',
                      "é"])
loose_logic = _loose(["or(", "and(", "not.", "or", "(", ")", ",", " ", "\t", "a", "b.", ".", "eq.", "in.", "is.", "null", "NULL",
                      "isdistinct.", "fts(", "english", "eq(any).", "{1,2}", "{", "}", '"', '"x,y"', "\\", "1", "->", "é", "(all)"])

# (reading, grammar, where, generated texts): the public reading takes the direct path first
READINGS = {
    "select": (query_params.parse_select, grammar._forest, "select parameter", st.one_of(select, loose_select)),
    "order": (query_params.parse_order, grammar._order, "order", st.one_of(order, loose_order)),
    "logic tree": (lambda text: query_params._parsed(grammar._logic_tree, readers._read_logic, "logic tree", text),
                   grammar._logic_tree, "logic tree",
                   st.one_of(logic_tree, st.builds(lambda op, t: op + "(" + t, st.sampled_from(["or", "not.and"]), loose_logic))),
    "names": (lambda text: query_params._parsed(grammar._names, readers._read_names, "columns parameter", text),
              grammar._names, "columns parameter", names),
}


@pytest.mark.parametrize("what", list(READINGS))
@settings(max_examples=700, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_direct_reading_gives_what_the_grammar_gives(what: str, data: st.DataObject) -> None:
    read, grammar, where, texts = READINGS[what]
    text = data.draw(texts)
    if data.draw(st.booleans()):
        text = _spoilt(text, data.draw(st.integers(0, 200)), data.draw(stray), data.draw(stray))
    assert _outcome(lambda: read(text)) == _grammar(grammar, where, text)


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["", "not."]), in_list, stray)
def test_in_list_filters_read_as_the_grammar_reads_them(negation: str, listed: str, after: str) -> None:
    value = f"{negation}in.{listed}{after}"
    direct = _outcome(lambda: query_params._parse_filter("k", value, False)[2])
    by_grammar = _outcome(lambda: grammar._filter(types.Field("k"), grammar._run(grammar._op_expr, "filter", value)))
    assert direct == by_grammar


# -- the common forms take the direct path -------------------------------------------------

@pytest.mark.parametrize(("read", "text"), [
    (readers._read_select, "id,name,a:authors(name)"),
    (readers._read_select, "*,author:users!author_id!inner(id,full_name),...profiles(avatar_url),tags(count)"),
    (readers._read_select, 'id, title::text, data->meta->>0, "weird,name", n:count(), price.sum()::int, c:x->"k"'),
    (readers._read_select, "id,channels!left(id,messages(id,author:users(name)))"),
    (readers._read_order, "created_at.desc.nullslast,id,author(name).asc,data->k.desc"),
    (readers._read_logic, 'or(and(a.eq.1,b.in.(x,"y,z")),c.is.NULL,not.and(d.gte(any).{1,2},t.fts(french).chat noir))'),
    (readers._read_logic, "not.or( id.eq.1 , name.like.*a b* )"),
    (readers._read_names, '"id","title","body"'),
    (readers._read_names, "id, title"),
])
def test_common_forms_are_read_directly(read: Callable[[str], object], text: str) -> None:
    assert read(text) is not None


def test_long_values_in_their_usual_form_are_read_directly() -> None:
    columns = ",".join(f"column_number_{i}::text" for i in range(1000))  # past MAX_GRAMMAR_CHARS
    assert len(columns) > grammar.MAX_GRAMMAR_CHARS
    assert len(query_params.parse_select(columns)) == 1000
    assert len(query_params.parse_query("id=in.(" + ",".join(f'"v,{i}"' for i in range(2000)) + ")").filters[()][0].value) == 2000


# -- what the grammar still reads: bounded, and off the event loop when long -----------------

def test_long_values_only_the_grammar_reads_are_bounded() -> None:
    columns = ",".join(f"column_number_{i}" for i in range(1000))
    with pytest.raises(errors.ApiError) as exc:
        query_params.parse_select(columns + ",!")  # an error at the end of a long value
    assert (exc.value.status, exc.value.code) == (400, "PGRST100")
    assert exc.value.details == f"values longer than {grammar.MAX_GRAMMAR_CHARS} characters are accepted only in their usual form"
    with pytest.raises(errors.ApiError) as exc:
        query_params.parse_select(",".join(f"column_number_{i}" for i in range(100)) + ",!")  # a short one: Parsec's message
    assert exc.value.details.startswith("unexpected")


def test_grammar_reads_long_values_in_a_worker_thread() -> None:
    value = "\t".join(["a"] * 100) + ",b,!"  # the grammar's to read (tabs), and past INLINE_GRAMMAR_CHARS
    assert readers._read_select(value) is None and len(value) > grammar.INLINE_GRAMMAR_CHARS
    query = "select=" + value.replace("\t", "%09")
    on_loop = grammar._ON_EVENT_LOOP.set(True)
    try:
        with pytest.raises(grammar._Costly):  # on the event loop, the grammar leaves it to a thread
            query_params.parse_query(query)
    finally:
        grammar._ON_EVENT_LOOP.reset(on_loop)
    # in a thread, the answer is the grammar's
    assert _outcome(lambda: asyncio.run(query_params._query_params(query, False))) == _grammar(grammar._forest, "select parameter", value)
    long_query = "select=" + ",".join(f"c{i}" for i in range(2000))  # past INLINE_QUERY_BYTES: parsed in a thread
    assert len(long_query) > query_params.INLINE_QUERY_BYTES
    assert asyncio.run(query_params._query_params(long_query, False)).select == query_params.parse_select(long_query[7:])
