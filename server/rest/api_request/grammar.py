"""The query-string grammar, as PostgREST's ApiRequest/QueryParams.hs writes it with Parsec,
on the Parsec of server/rest/parsec.py: `select` trees, filters `[not.]op[(any|all)].value`,
`or`/`and` logic trees, `order`, names, tree paths. It is the reference reading: every value
the direct readers (readers.py) do not take is read here, giving PostgREST's value or its
PGRST100 in PostgREST's words (`_run`)."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from server.rest import errors
from server.rest import parsec as P
from server.rest.api_request.bounds import MAX_INT, MAX_JSON_PATH, MAX_NESTING, _Bound, bounded_int
from server.rest.api_request.types import ColumnItem, EmbedItem, Field, Filter, JsonOp, Logic, OrderTerm, SelectItem


def _nested(p: P.Parser, what: str) -> P.Parser:
    """p one level deeper: past MAX_NESTING levels the parse stops with PGRST100."""
    def run(st: P.State, i: int) -> P.Reply:
        if st.depth >= MAX_NESTING:
            raise _Bound(i, f"{what} nested more than {MAX_NESTING} levels deep are not accepted")
        st.depth += 1
        try:
            return p(st, i)
        finally:
            st.depth -= 1
    return run


def _json_path_bound(steps: int, offset: int) -> None:
    if steps > MAX_JSON_PATH:
        raise _Bound(offset, f"JSON paths longer than {MAX_JSON_PATH} steps are not accepted")


def _lexeme(p: P.Parser) -> P.Parser:
    return P.pick(1, _ws, p, _ws)


def _join(chars: list[str]) -> str:
    return "".join(chars)


def _stripped(chars: list[str]) -> str:
    return P.hs_strip("".join(chars))


def _sep_by_dash(identifier: P.Parser) -> P.Parser:
    return P.fmap(P.sep_by1(identifier, _dash), "-".join)


def _keyword(word: str, value: Any) -> P.Parser:
    return P.fmap(P.attempt(P.string(word)), lambda _: value)


_ws = P.many(P.one_of(" \t"))
_delimiter = P.label(P.char("."), "delimiter (.)")
_quoted = P.fmap(P.between(P.char('"'), P.char('"'), P.many(P.alt(P.none_of('\\"'), P.pick(1, P.char("\\"), P.any_char)))),
                 _join)
_identifier = P.fmap(P.many1(P.alt(P.letter, P.digit, P.one_of("_ $"))), _stripped)
_dash = P.fmap(P.attempt(P.seq(P.char("-"), P.not_followed_by(P.char(">")))), lambda _: "-")
_field_name = P.memo(P.label(P.alt(_quoted, _sep_by_dash(_identifier)), "field name (* or [a..z0..9_$])"))

# JSON paths: `->key`, `->>key`, `->0`, `->-1`
_json_key = P.label(P.alt(_quoted, _sep_by_dash(P.fmap(P.many1(P.none_of("(-:.,>)")), _stripped))),
                    "any non reserved character different from: .,>()")
_json_index_end = P.alt(*(P.attempt(P.look_ahead(P.string(s))) for s in ("->", "::", ".", ",")), P.attempt(P.eof))
_json_index_digits = P.pick(0, P.seq(P.option("", P.char("-")), P.many1(P.digit)), _json_index_end)


def _json_index(st: P.State, i: int) -> P.Reply:
    reply = _json_index_digits(st, i)
    if not reply[1]:
        return reply
    sign, digits = reply[2]
    if bounded_int("".join(digits), MAX_INT) is None:
        raise _Bound(i, f"JSON array indexes beyond {MAX_INT} are not accepted")
    return reply[0], True, (sign + "".join(digits), True), reply[3], reply[4]


_json_operand = P.alt(P.attempt(_json_index), P.attempt(P.fmap(_json_key, lambda key: (key, False))))
_json_arrow = P.alt(P.attempt(P.string("->>")), P.attempt(P.string("->")))
_json_path = P.fmap(P.many(P.fmap(P.seq(_json_arrow, _json_operand), lambda v: JsonOp(v[0], *v[1])), _json_path_bound), tuple)
_field = P.memo(_lexeme(P.fmap(P.seq(_field_name, P.option((), _json_path)), lambda v: Field(v[0], v[1]))))
_tree_path = P.fmap(P.seq(P.sep_by1(_field_name, _delimiter), P.option((), _json_path)),
                    lambda v: (tuple(v[0][:-1]), Field(v[0][-1], v[1])))

# select
_alias = P.memo(P.optional(P.attempt(P.pick(0, _field_name, P.seq(P.char(":"), P.not_followed_by(P.char(":")))))))
_cast = P.optional(P.pick(1, P.string("::"), _identifier))
_select_end = P.alt(P.attempt(P.look_ahead(P.string(")"))), P.attempt(P.look_ahead(P.string(","))), P.attempt(P.eof))
_aggregate = P.alt(P.string("sum"), P.string("avg"), P.string("count"), P.attempt(P.string("max")), P.attempt(P.string("min")))
_embed_param = P.pick(1, P.char("!"), P.alt(_keyword("left", ("join", "left")), _keyword("inner", ("join", "inner")),
                                            P.attempt(P.fmap(_field_name, lambda name: ("hint", name)))))
_embed_params = P.seq(P.optional(_embed_param), P.optional(_embed_param))
_opens = P.attempt(P.look_ahead(P.string("(")))
_relation = _lexeme(P.seq(_alias, P.bind(_field_name, lambda name: P.zero if name == "count" else P.pure(name)),
                          _embed_params, _opens))
_spread = _lexeme(P.seq(P.pick(1, P.string("..."), _field_name), _embed_params, _opens))
_field_select = _lexeme(P.alt(
    P.fmap(P.attempt(P.seq(P.string("*"), _select_end)), lambda _: ColumnItem(Field("*"))),
    P.fmap(P.attempt(P.seq(_alias, P.string("count()"), _cast, _select_end)),
           lambda v: ColumnItem(Field("*"), v[0], aggregate="count", aggregate_cast=v[2])),
    P.fmap(P.seq(_alias, _field, _cast, P.optional(P.attempt(P.pick(1, P.char("."), _aggregate, P.string("()")))), _cast,
                 _select_end),
           lambda v: ColumnItem(v[1], v[0], v[2], v[3], v[4]))))


def _embed_options(params: list[tuple[str, str] | None]) -> tuple[str | None, str | None]:
    """(hint, join) of `!a!b`: the first of each kind counts."""
    hint = next((value for kind, value in filter(None, params) if kind == "hint"), None)
    join = next((value for kind, value in filter(None, params) if kind == "join"), None)
    return hint, join


def _embed(head: list[Any], items: list[SelectItem], spread: bool) -> EmbedItem:
    if spread:
        name, params, _ = head
        alias = None
    else:
        alias, name, params, _ = head
    hint, join = _embed_options(params)
    return EmbedItem(name, alias, hint, join, spread, items)


_forest, _define_forest = P.forward()
_children = P.between(P.char("("), P.char(")"), _nested(_forest, "embeds"))
_define_forest(P.sep_by(P.alt(P.fmap(P.seq(P.attempt(_spread), _children), lambda v: _embed(v[0], v[1], True)),
                              P.fmap(P.seq(P.attempt(_relation), _children), lambda v: _embed(v[0], v[1], False)),
                              _field_select),
                        _lexeme(P.char(","))))

# filters: [not.]operator[(modifier)].value
_IS_WORDS = ("null", "not_null", "true", "false", "unknown")


def _ci_string(word: str) -> P.Parser:
    """Parsec's case-insensitive `ciString` (each character or its upper case), as `word`."""
    return P.fmap(P.attempt(P.seq(*(P.alt(P.char(c), P.char(c.upper())) for c in word))), lambda _: word)


_is_value = P.label(P.alt(*(_ci_string(word) for word in _IS_WORDS)), "isVal: (null, not_null, true, false, unknown)")
_list_element = P.alt(P.attempt(P.pick(0, _quoted, P.not_followed_by(P.none_of(",)")))), P.fmap(P.many(P.none_of(",)")), _join))
_list_value = P.fmap(P.pick(1, _lexeme(P.char("(")), P.sep_by1(_list_element, P.char(",")), _lexeme(P.char(")"))),
                     lambda values: [] if values == [""] else values)  # in.() is PostgREST's empty list
_SIMPLE_OPS = ("neq", "cs", "cd", "ov", "sl", "sr", "nxr", "nxl", "adj")
_QUANT_OPS = ("eq", "gte", "gt", "lte", "lt", "like", "ilike", "match", "imatch")  # those taking (any) / (all)
_FTS_OPS = ("fts", "plfts", "phfts", "wfts")
_simple_operator = P.label(P.alt(*(_keyword(op, op) for op in _SIMPLE_OPS)), "unknown single value operator")
_quant_operator = P.label(P.alt(*(_keyword(op, op) for op in _QUANT_OPS)), "unknown single value operator")
_fts_operator = P.alt(*(_keyword(op, op) for op in _FTS_OPS))
_quantifier = P.optional(P.attempt(P.between(P.char("("), P.char(")"),
                                              P.alt(_keyword("any", "any"), P.fmap(P.string("all"), lambda _: "all")))))
_negation = P.alt(P.fmap(P.attempt(P.seq(P.string("not"), _delimiter)), lambda _: True), P.pure(False))

# (op, value, quantifier, language) for each form
_Operation = tuple[str, Any, str | None, str | None]


def _operation(single: P.Parser) -> P.Parser:
    """pOpExpr's pOperation over a value parser: the rest of the text in a filter, up to
    `,` or `)` in a logic tree."""
    return P.label(P.alt(
        P.fmap(P.pick(1, P.attempt(P.seq(P.string("in"), _delimiter)), _list_value), lambda v: ("in", v, None, None)),
        P.fmap(P.pick(1, P.attempt(P.seq(P.string("is"), _delimiter)), _is_value), lambda v: ("is", v, None, None)),
        P.fmap(P.pick(1, P.attempt(P.seq(P.string("isdistinct"), _delimiter)), single), lambda v: ("isdistinct", v, None, None)),
        P.fmap(P.attempt(P.seq(_fts_operator, P.optional(P.attempt(P.between(P.char("("), P.char(")"), _identifier))), _delimiter,
                               single)),
               lambda v: (v[0], v[3], None, v[1])),
        P.fmap(P.attempt(P.seq(_simple_operator, _delimiter, single)), lambda v: (v[0], v[2], None, None)),
        P.fmap(P.attempt(P.seq(_quant_operator, _quantifier, _delimiter, single)), lambda v: (v[0], v[3], v[1], None)),
    ), "operator (eq, gt, ...)")


_single_value = P.fmap(P.many(P.any_char), _join)
_pg_array = P.fmap(P.seq(P.string("{"), P.many(P.none_of("{}")), P.string("}")), lambda v: "{" + "".join(v[1]) + "}")
_logic_value = P.alt(P.attempt(P.pick(0, _quoted, P.not_followed_by(P.none_of(",)")))), P.attempt(_pg_array),
                     P.fmap(P.many(P.none_of(",)")), _join))
_op_expr = P.seq(_negation, _operation(_single_value))
_logic_op_expr = P.seq(_negation, _operation(_logic_value))


def _filter(fld: Field, expr: list[Any]) -> Filter:
    negate, (op, value, quantifier, language) = expr
    if quantifier:  # the value is an array literal: PostgREST lets PostgreSQL read it, we bind its elements
        value = _brace_list(value)
    return Filter(fld, op, value, negate, quantifier, language)


def _brace_list(text: str) -> list[str]:
    """`{a,"b,c"}` -> ['a', 'b,c'] (the elements of an any/all array literal)."""
    if not (text.startswith("{") and text.endswith("}") and len(text) >= 2):
        raise _Bound(0, f'unexpected "{text[:1]}" expecting an array literal {{...}}' if text else
                     "unexpected end of input expecting an array literal {...}")
    inner = text[1:-1]
    if not inner:
        return []
    parts: list[str] = []
    buf: list[str] = []
    quoted = False
    i = 0
    while i < len(inner):
        ch = inner[i]
        if quoted and ch == "\\" and i + 1 < len(inner):
            buf.append(inner[i + 1])
            i += 1
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


# logic trees: the key's operator glued to the value, `or(a.eq.1,and(b.gt.2,c.is.null))`
_logic_tree, _define_logic_tree = P.forward()
_logic_filter = P.fmap(P.seq(_field, _delimiter, _logic_op_expr), lambda v: _filter(v[0], v[2]))
_logic_not = P.label(P.alt(P.fmap(P.attempt(P.seq(P.string("not"), _delimiter)), lambda _: True), P.pure(False)),
                     "negation operator (not)")
_logic_operator = P.label(P.alt(_keyword("and", "and"), P.fmap(P.string("or"), lambda _: "or")), "logic operator (and, or)")
_define_logic_tree(P.alt(
    P.attempt(_logic_filter),
    P.fmap(P.seq(_logic_not, _logic_operator,
                 P.pick(1, _lexeme(P.char("(")), _nested(P.sep_by1(_logic_tree, _lexeme(P.char(","))), "and()/or()"),
                        _lexeme(P.char(")")))),
           lambda v: Logic(v[1], v[0], v[2]))))

# order
_order_end = P.alt(P.attempt(P.look_ahead(P.char(","))), P.attempt(P.eof))
_direction = P.alt(P.attempt(P.pick(1, _delimiter, P.string("asc"))), P.attempt(P.pick(1, _delimiter, P.string("desc"))))
_nulls = P.alt(P.attempt(P.pick(1, _delimiter, P.string("nullsfirst"))), P.attempt(P.pick(1, _delimiter, P.string("nullslast"))))
_order_tail = P.seq(P.optional(_direction), P.alt(P.pick(0, P.optional(_nulls), _order_end), P.fmap(_order_end, lambda _: None)))


def _order_term(fld: Field, tail: list[str | None], relation: str | None = None) -> OrderTerm:
    direction, nulls = tail
    return OrderTerm(fld, direction, nulls[5:] if nulls else None, relation)


_order = P.sep_by1(_lexeme(P.alt(
    P.attempt(P.fmap(P.seq(_field_name, P.between(P.char("("), P.char(")"), _field), _order_tail),
                     lambda v: _order_term(v[1], v[2], v[0]))),
    P.fmap(P.seq(_field, _order_tail), lambda v: _order_term(v[0], v[1])))), P.char(","))

_names = P.sep_by1(_field_name, _lexeme(P.char(",")))  # columns, on_conflict
_logic_path = P.sep_by1(_field_name, _delimiter)


# The grammar costs up to ~35 µs per character (nested embeds, errors at the end): it reads
# long values only in a worker thread (query_params.py), and none past MAX_GRAMMAR_CHARS, a bound of
# ours: the direct readings take values of any length, so only a long value in an unusual
# form or with an error meets it, answered PGRST100 like PostgREST, in other words.
MAX_GRAMMAR_CHARS = 8 * 1024
INLINE_GRAMMAR_CHARS = 128  # on the event loop, the grammar reads values up to this length (a few ms)
_ON_EVENT_LOOP: ContextVar[bool] = ContextVar("rest_query_on_event_loop", default=False)


class _Costly(Exception):
    """A value only the grammar reads, too long to be read on the event loop."""


def _run(parser: P.Parser, where: str, text: str, shown: str | None = None) -> Any:
    """parser over text, or PGRST100 in PostgREST's words: "failed to parse <where> (<the
    parameter>)" at Parsec's line and column, the details being Parsec's message."""
    if len(text) > MAX_GRAMMAR_CHARS:
        raise errors.parse_error(where, text if shown is None else shown, 1,
                                 f"values longer than {MAX_GRAMMAR_CHARS} characters are accepted only in their usual form")
    if len(text) > INLINE_GRAMMAR_CHARS and _ON_EVENT_LOOP.get():
        raise _Costly
    try:
        ok, value, err = P.run(parser, text)
    except _Bound as exc:
        ok, value, err = False, exc.details, P.ParseError(exc.offset)
    if not ok:
        line, column = P.line_column(text, err.pos)
        details = value if isinstance(value, str) else P.describe(err)
        raise errors.parse_error(where, text if shown is None else shown, column, details, line)
    return value
