"""Parse an HTTP request into an ApiRequest: query string, headers and body. No database.

The grammar is PostgREST's (src/PostgREST/ApiRequest/QueryParams.hs): `select` trees,
filters `[not.]op[(any|all)].value`, `or`/`and` logic trees, `order`, `limit`/`offset`,
embedded variants prefixed with the embed path (`courses.order=...`), and `Prefer`,
`Accept`, `Range`, `Accept-Profile`/`Content-Profile` headers.
"""

from __future__ import annotations

import asyncio
import csv
import functools
import io
import re
import threading
from collections.abc import Callable, Hashable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import parse_qsl, unquote

import orjson

from server.bounded_store import ENTRY_OVERHEAD, BoundedStore
from server.rest import errors
from server.rest import parsec as P

OPERATORS = {
    "eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "like": "like", "ilike": "ilike",
    "match": "~", "imatch": "~*", "in": "in", "is": "is", "isdistinct": "is distinct from",
    "fts": "@@", "plfts": "@@", "phfts": "@@", "wfts": "@@", "cs": "@>", "cd": "<@", "ov": "&&",
    "sl": "<<", "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-",
}
QUANTIFIABLE = {"eq", "neq", "gt", "gte", "lt", "lte", "like", "ilike", "match", "imatch"}
FTS = {"fts", "plfts", "phfts", "wfts"}
AGGREGATES = {"count", "sum", "avg", "max", "min"}
RESERVED = {"select", "order", "limit", "offset", "and", "or", "not.and", "not.or", "on_conflict", "columns"}
IS_VALUES = {"null", "not_null", "true", "false", "unknown"}

# Bounds on what a URL may nest, far beyond any real query: parsing recursion stays well
# inside Python's stack, and the SQL inside PostgreSQL's max_stack_depth.
MAX_NESTING = 32  # embeds in `select`, and()/or() in logic trees
MAX_JSON_PATH = 64  # `->` / `->>` steps of one field
MAX_BIGINT = 2**63 - 1  # limit, offset, Range and max-affected: PostgreSQL's bigint
MAX_INT = 2**31 - 1  # a JSON array index (bound as int)

Path = tuple[str, ...]


@dataclass(frozen=True)
class JsonOp:
    arrow: str  # "->" or "->>"
    key: str
    is_index: bool = False


@dataclass(frozen=True)
class Field:
    name: str
    json_path: tuple[JsonOp, ...] = ()

    @property
    def default_alias(self) -> str:
        """PostgREST names `a->b->>c` after its last key."""
        return self.json_path[-1].key if self.json_path else self.name


@dataclass
class ColumnItem:
    field: Field
    alias: str | None = None
    cast: str | None = None
    aggregate: str | None = None
    aggregate_cast: str | None = None


@dataclass
class EmbedItem:
    name: str
    alias: str | None = None
    hint: str | None = None
    join: str | None = None  # "inner" | "left" | None
    spread: bool = False
    items: list[SelectItem] = field(default_factory=list)


SelectItem = ColumnItem | EmbedItem


@dataclass
class Filter:
    field: Field
    op: str
    value: Any  # str, list[str] for `in`, or the `is` keyword
    negate: bool = False
    quantifier: str | None = None  # "any" | "all"
    language: str | None = None  # fts config


@dataclass
class Logic:
    op: str  # "and" | "or"
    negate: bool
    children: list[Logic | Filter]


@dataclass
class OrderTerm:
    field: Field
    direction: str | None = None  # "asc" | "desc"
    nulls: str | None = None  # "first" | "last"
    relation: str | None = None  # related order: order=rel(col)


@dataclass
class Prefer:
    return_: str | None = None  # minimal | headers-only | representation
    count: str | None = None  # exact | planned | estimated
    resolution: str | None = None  # merge-duplicates | ignore-duplicates
    missing: str | None = None  # default | null
    tx: str | None = None  # commit | rollback
    handling: str | None = None
    max_affected: int | None = None
    params: str | None = None
    invalid: list[str] = field(default_factory=list)


@dataclass
class MediaType:
    kind: str  # json | object | csv | geojson | plan | text | octet
    nulls_stripped: bool = False
    plan_format: str = "text"  # json | text
    plan_options: tuple[str, ...] = ()  # known options only, in PostgREST's order
    plan_for: str | None = None  # the media type explained (`for="text/csv"`), as its mime

    @property
    def content_type(self) -> str:
        """The Content-Type of an answer in this media type, spelled as PostgREST's toMime."""
        if self.kind == "object":
            return "application/vnd.pgrst.object+json" + (";nulls=stripped" if self.nulls_stripped else "") + "; charset=utf-8"
        if self.kind == "csv":
            return "text/csv; charset=utf-8"
        if self.kind == "geojson":
            return "application/geo+json; charset=utf-8"
        if self.kind == "plan":
            plan_for = f'; for="{self.plan_for}"' if self.plan_for else ""
            options = "; options=" + "|".join(self.plan_options) if self.plan_options else ""
            return f"application/vnd.pgrst.plan+{self.plan_format}{plan_for}{options}; charset=utf-8"
        if self.kind == "text":
            return "text/plain; charset=utf-8"
        if self.kind == "octet":
            return "application/octet-stream"
        if self.nulls_stripped:
            return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
        return "application/json; charset=utf-8"

    @property
    def output(self) -> MediaType:
        """What the statement builds: the media type itself, or the one an EXPLAIN is for."""
        if self.kind != "plan" or self.plan_for is None:
            return self
        return _plan_target(self.plan_for)


@dataclass
class QueryParams:
    select: list[SelectItem] = field(default_factory=lambda: [ColumnItem(Field("*"))])
    filters: dict[Path, list[Filter]] = field(default_factory=dict)
    logic: dict[Path, list[Logic]] = field(default_factory=dict)
    order: dict[Path, list[OrderTerm]] = field(default_factory=dict)
    limit: dict[Path, int] = field(default_factory=dict)
    offset: dict[Path, int] = field(default_factory=dict)
    columns: list[str] | None = None
    on_conflict: list[str] | None = None
    rpc_args: dict[str, list[str]] = field(default_factory=dict)  # GET rpc: non-filter params
    has_select: bool = False


@dataclass(slots=True)
class ApiRequest:
    """What a request asks, parsed from its path, query string, headers and body; no
    database involved (PostgREST's ApiRequest). The plan stage resolves it against the
    schema cache; no stage changes it."""

    method: str
    action: str  # schema | read | create | update | upsert | delete | call
    target: str  # the relation or function name ("" for the schema root)
    schema: str
    query: QueryParams
    prefer: Prefer
    media: MediaType
    range: tuple[int, int | None] | None  # Range header of a relation read: (offset, limit)
    content_type: str
    payload: Any  # the parsed body: None without one
    body: bytes
    body_shape: Hashable | None  # what of the body shapes the statement (body_shape); None: not cacheable


# -- the query-string grammar (PostgREST's QueryParams.hs, on the Parsec of parsec.py) -------

def bounded_int(digits: str, maximum: int) -> int | None:
    """ASCII digits as an int in [0, maximum], else None (checked before converting, so a
    thousand-digit number costs nothing and never meets Python's int-conversion limit)."""
    if not digits.isascii() or not digits.isdigit():
        return None
    digits = digits.lstrip("0") or "0"
    if len(digits) > len(str(maximum)):
        return None
    value = int(digits)
    return value if value <= maximum else None


class _Bound(Exception):
    """A bound of ours (nesting, JSON path steps, numbers) passed at an offset of the text:
    hostile input answered with PGRST100 before it costs anything."""

    def __init__(self, offset: int, details: str) -> None:
        super().__init__(details)
        self.offset = offset
        self.details = details


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


# -- the common grammar, read directly --------------------------------------------------------
# The Parsec grammar above costs tens of microseconds per select item (its alternatives
# backtrack and every step keeps Parsec's error bookkeeping): a long select would hold the
# event loop for tens of milliseconds. Values as clients send them are read here in one
# pass instead, each reader following the grammar step by step. Whenever a reader meets
# what it does not know the grammar reads the same way (an error, an unusual blank or quote,
# a bound), it answers None and the grammar reads the text, giving PostgREST's value or its
# PGRST100. tests/unit/rest/test_request.py checks on generated texts that both agree.
# Readers take (text, offset) and give (value, offset after) or None.

_IDENTIFIER = re.compile(r"[\w$ ]+")  # pIdentifier's letters, digits, `_`, ` `, `$` (checked below for non-ASCII)
_QUOTED = re.compile(r'"([^\\"]*(?:\\.[^\\"]*)*)"', re.S)
_ESCAPED = re.compile(r"\\(.)", re.S)
_JSON_KEY = re.compile(r"[^(\-:.,>)]+")
_JSON_INDEX = re.compile(r"-?[0-9]+")
_JSON_INDEX_ENDS = ("->", "::", ".", ",")
_PLAIN_COLUMN = re.compile(r"[A-Za-z0-9_$]+(?=[,)]|\Z)")  # most items: a bare column name
_AGGREGATE_CALL = re.compile(r"\.(sum|avg|count|max|min)\(\)")
_LOGIC_HEAD = re.compile(r"(not\.)?(and|or)[ \t]*\(")  # only a logic operator's group starts so: no filter does
_OPERATOR_WORD = re.compile(r"[a-z]+")
_PG_ARRAY = re.compile(r"\{[^{}]*\}")
_VALUE_END = re.compile(r"[,)]")


def _blanks(text: str, i: int) -> int:
    """ws: past the blanks lexeme skips."""
    while text.startswith((" ", "\t"), i):
        i += 1
    return i


def _unquoted_at(text: str, k: int) -> tuple[str, int]:
    """many (noneOf ",)"): up to the next `,` or `)`."""
    end = _VALUE_END.search(text, k)
    stop = len(text) if end is None else end.start()
    return text[k:stop], stop


def _identifier_text(run: str) -> str | None:
    """A run of _IDENTIFIER stripped as pIdentifier's; None when \\w let in what Haskell's
    isAlpha refuses (a non-ASCII digit, say)."""
    if not run.isascii() and not all(c.isalpha() for c in run if not c.isascii()):
        return None
    return run.strip(" ")


def _quoted_at(text: str, i: int) -> tuple[str, int] | None:
    m = _QUOTED.match(text, i)
    if m is None:
        return None
    inner = m[1]
    return (_ESCAPED.sub(r"\1", inner) if "\\" in inner else inner), m.end()


def _dashed_at(text: str, i: int, piece: re.Pattern[str], clean: Callable[[str], str | None]) -> tuple[str, int] | None:
    """A quoted name, or runs of `piece` (each passed through `clean`, None refusing it) joined
    by `-` but not `->`: the shape of pFieldName and of pJsonPath's keys."""
    if text.startswith('"', i):
        return _quoted_at(text, i)
    pieces = []
    while True:
        m = piece.match(text, i)
        cleaned = None if m is None else clean(m[0])
        if m is None or cleaned is None:
            return None
        pieces.append(cleaned)
        i = m.end()
        if not text.startswith("-", i) or text.startswith("->", i):
            return "-".join(pieces), i
        i += 1


def _name_at(text: str, i: int) -> tuple[str, int] | None:
    """pFieldName: a quoted name, or identifiers joined by `-` (not `->`)."""
    return _dashed_at(text, i, _IDENTIFIER, _identifier_text)


def _json_key_at(text: str, i: int) -> tuple[str, int] | None:
    return _dashed_at(text, i, _JSON_KEY, P.hs_strip)


def _json_path_at(text: str, i: int) -> tuple[tuple[JsonOp, ...], int] | None:
    """pJsonPath: `->key`, `->>0`, ... (an index only when followed by `->`, `::`, `.`, `,`
    or the end)."""
    ops: list[JsonOp] = []
    while text.startswith("->", i):
        if len(ops) == MAX_JSON_PATH:
            return None
        arrow = "->>" if text.startswith("->>", i) else "->"
        i += len(arrow)
        m = _JSON_INDEX.match(text, i)
        if m is not None and (m.end() == len(text) or text.startswith(_JSON_INDEX_ENDS, m.end())):
            if bounded_int(m[0].lstrip("-"), MAX_INT) is None:
                return None
            ops.append(JsonOp(arrow, m[0], True))
            i = m.end()
            continue
        key = _json_key_at(text, i)
        if key is None:
            return None
        ops.append(JsonOp(arrow, key[0]))
        i = key[1]
    return tuple(ops), i


def _field_at(text: str, i: int) -> tuple[Field, int] | None:
    """pField, blanks around."""
    name = _name_at(text, _blanks(text, i))
    path = None if name is None else _json_path_at(text, name[1])
    if name is None or path is None:
        return None
    return Field(name[0], path[0]), _blanks(text, path[1])


def _cast_at(text: str, i: int) -> tuple[str | None, int] | None:
    """pCast, optional: (None, i) without one."""
    if not text.startswith(":", i):
        return None, i
    m = _IDENTIFIER.match(text, i + 2) if text.startswith("::", i) else None
    cast = None if m is None else _identifier_text(m[0])
    if m is None or cast is None:
        return None
    return cast, m.end()


_T = TypeVar("_T")


def _separated_at(text: str, i: int, read_one: Callable[[str, int], tuple[_T, int] | None]) -> tuple[list[_T], int] | None:
    """Parsec's sepBy1 with `blanks , blanks` as the separator: the items and where they end."""
    items: list[_T] = []
    while True:
        read = read_one(text, i)
        if read is None:
            return None
        items.append(read[0])
        i = read[1]
        j = _blanks(text, i)
        if text.startswith(",", j):
            i = _blanks(text, j + 1)
        elif j == i:
            return items, i
        else:  # blanks not followed by `,`: the separator failed after consuming them
            return None


def _select_items_at(text: str, i: int, depth: int) -> tuple[list[SelectItem], int] | None:
    """pFieldForest: items separated by `,` with blanks around."""
    return _separated_at(text, i, lambda t, k: _select_item_at(t, k, depth))


def _select_item_at(text: str, i: int, depth: int) -> tuple[SelectItem, int] | None:
    """pFieldTree: a spread, an embed, `*`, `count()` or a column, as the grammar tries them."""
    i = _blanks(text, i)
    plain = _PLAIN_COLUMN.match(text, i)
    if plain is not None:
        return ColumnItem(Field(plain[0])), plain.end()
    n = len(text)
    if text.startswith("...", i):
        head = _name_at(text, i + 3)
        return None if head is None else _embed_at(text, head[1], head[0], None, True, depth)
    if text.startswith("*", i):
        return (ColumnItem(Field("*")), i + 1) if i + 1 == n or text[i + 1] in ",)" else None
    alias, j = None, i
    head = _name_at(text, i)
    if head is not None and text.startswith(":", head[1]) and not text.startswith("::", head[1]):
        alias, j, head = head[0], head[1] + 1, None
    if text.startswith("count()", j):
        cast = _cast_at(text, j + 7)
        if cast is None or (cast[1] < n and text[cast[1]] not in ",)"):
            return None
        return ColumnItem(Field("*"), alias, aggregate="count", aggregate_cast=cast[0]), cast[1]
    if head is None:
        head = _name_at(text, j)
        if head is None:
            return None
    name, k = head
    if k < n and text[k] in "!(":
        return None if name == "count" else _embed_at(text, k, name, alias, False, depth)
    # a column: [alias:]field[::cast][.aggregate()][::cast]
    if j < n and text[j] in " \t":  # the field skips blanks before its name (the embed's name does not)
        fld = _field_at(text, j)
    else:
        path = _json_path_at(text, k)
        fld = None if path is None else (Field(name, path[0]), _blanks(text, path[1]))
    cast = None if fld is None else _cast_at(text, fld[1])
    if fld is None or cast is None:
        return None
    k, aggregate = cast[1], None
    if text.startswith(".", k):
        m = _AGGREGATE_CALL.match(text, k)
        if m is None:
            return None
        k, aggregate = m.end(), m[1]
    aggregate_cast = _cast_at(text, k)
    if aggregate_cast is None or (aggregate_cast[1] < n and text[aggregate_cast[1]] not in ",)"):
        return None
    return ColumnItem(fld[0], alias, cast[0], aggregate, aggregate_cast[0]), aggregate_cast[1]


def _embed_at(text: str, k: int, name: str, alias: str | None, spread: bool, depth: int) -> tuple[EmbedItem, int] | None:
    """The rest of an embed after its name: up to two `!hint` / `!inner` / `!left`, then its
    children in parentheses."""
    params: list[tuple[str, str] | None] = []
    while len(params) < 2 and text.startswith("!", k):
        k += 1
        if text.startswith(("left", "inner"), k):  # the keywords win over hints spelled alike
            keyword = "left" if text.startswith("left", k) else "inner"
            params.append(("join", keyword))
            k += len(keyword)
        else:
            named = _name_at(text, k)
            if named is None:
                return None
            params.append(("hint", named[0]))
            k = named[1]
    if not text.startswith("(", k) or depth >= MAX_NESTING:
        return None
    items: list[SelectItem] = []
    k += 1
    if not text.startswith(")", k):
        children = _select_items_at(text, k, depth + 1)
        if children is None or not text.startswith(")", children[1]):
            return None
        items, k = children
    hint, join = _embed_options(params)
    return EmbedItem(name, alias, hint, join, spread, items), k + 1


def _read_select(text: str) -> list[SelectItem] | None:
    if not text:
        return []
    read = _select_items_at(text, 0, 0)
    return None if read is None else read[0]  # what follows the items is ignored, as by the grammar


def _read_order(text: str) -> list[OrderTerm] | None:
    terms: list[OrderTerm] = []
    i = 0
    while True:
        head = _name_at(text, _blanks(text, i))
        if head is None:
            return None
        name, k = head
        relation = None
        if text.startswith("(", k):  # order=relation(field)
            inner = _field_at(text, k + 1)
            if inner is None or not text.startswith(")", inner[1]):
                return None
            fld, k, relation = inner[0], inner[1] + 1, name
        else:
            path = _json_path_at(text, k)
            if path is None:
                return None
            fld, k = Field(name, path[0]), _blanks(text, path[1])
        direction = nulls = None
        for word in ("asc", "desc"):
            if text.startswith(("." + word), k):
                direction, k = word, k + 1 + len(word)
                break
        for word in ("first", "last"):
            if text.startswith(".nulls" + word, k):
                nulls, k = word, k + 6 + len(word)
                break
        terms.append(OrderTerm(fld, direction, nulls, relation))
        if k == len(text):
            return terms
        if text[k] != ",":
            return None
        i = k + 1


def _read_names(text: str) -> list[str] | None:
    """columns and on_conflict: names separated by `,` with blanks around."""
    read = _separated_at(text, 0, _name_at)
    return None if read is None else read[0]


def _logic_value_at(text: str, k: int) -> tuple[str, int]:
    """A single value in a logic tree: a whole quoted value, a {...} array, or up to `,` / `)`."""
    if text.startswith('"', k):
        quoted = _quoted_at(text, k)
        if quoted is not None and (quoted[1] == len(text) or text[quoted[1]] in ",)"):
            return quoted
    elif text.startswith("{", k):
        m = _PG_ARRAY.match(text, k)
        if m is not None:
            return m[0], m.end()
    return _unquoted_at(text, k)


def _list_at(text: str, k: int) -> tuple[list[str], int] | None:
    """pListVal: `(a,"b,c")`, blanks around the parentheses."""
    k = _blanks(text, k)
    if not text.startswith("(", k):
        return None
    k = _blanks(text, k + 1)
    values: list[str] = []
    while True:
        quoted = _quoted_at(text, k) if text.startswith('"', k) else None
        if quoted is not None and (quoted[1] == len(text) or text[quoted[1]] in ",)"):
            value, k = quoted
        else:
            value, k = _unquoted_at(text, k)
        values.append(value)
        if not text.startswith(",", k):
            break
        k += 1
    if not text.startswith(")", k):
        return None
    return ([] if values == [""] else values), _blanks(text, k + 1)


def _logic_filter_at(text: str, i: int) -> tuple[Filter, int] | None:
    """field.[not.]op.value inside a logic tree."""
    head = _field_at(text, i)
    if head is None or not text.startswith(".", head[1]):
        return None
    fld, k = head[0], head[1] + 1
    negate = text.startswith("not.", k)
    k += 4 if negate else 0
    quantifier = language = None
    value: Any
    if text.startswith("in.", k):
        listed = _list_at(text, k + 3)
        if listed is None:
            return None
        op, (value, k) = "in", listed
    elif text.startswith("is.", k):
        k += 3
        word = next((w for w in _IS_WORDS if text[k:k + len(w)].isascii() and text[k:k + len(w)].lower() == w), None)
        if word is None:
            return None
        op, value, k = "is", word, k + len(word)
    else:
        m = _OPERATOR_WORD.match(text, k)
        if m is None:
            return None
        op, k = m[0], m.end()
        if op in _FTS_OPS and text.startswith("(", k):
            lang = _IDENTIFIER.match(text, k + 1)
            language = None if lang is None or not text.startswith(")", lang.end()) else _identifier_text(lang[0])
            if lang is None or language is None:
                return None
            k = lang.end() + 1
        elif op in _QUANT_OPS and text.startswith(("(any)", "(all)"), k):
            quantifier, k = text[k + 1:k + 4], k + 5
        elif op not in _SIMPLE_OPS and op not in _QUANT_OPS and op not in _FTS_OPS and op != "isdistinct":
            return None
        if not text.startswith(".", k):
            return None
        value, k = _logic_value_at(text, k + 1)
    try:
        return _filter(fld, [negate, (op, value, quantifier, language)]), k
    except _Bound:  # the grammar gives the error
        return None


def _logic_at(text: str, i: int, depth: int) -> tuple[Logic | Filter, int] | None:
    head = _LOGIC_HEAD.match(text, i)
    if head is None:
        return _logic_filter_at(text, i)
    if depth >= MAX_NESTING:
        return None
    k = _blanks(text, head.end())
    children: list[Logic | Filter] = []
    while True:
        child = _logic_at(text, k, depth + 1)
        if child is None:
            return None
        children.append(child[0])
        k = child[1]
        j = _blanks(text, k)
        if text.startswith(",", j):
            k = _blanks(text, j + 1)
        elif j == k and text.startswith(")", k):
            return Logic(head[2], bool(head[1]), children), _blanks(text, k + 1)
        else:
            return None


def _read_logic(text: str) -> Logic | Filter | None:
    read = _logic_at(text, 0, 0)
    return None if read is None else read[0]  # what follows the tree is ignored, as by the grammar


# The grammar costs up to ~35 µs per character (nested embeds, errors at the end): it reads
# long values only in a worker thread (below), and none past MAX_GRAMMAR_CHARS, a bound of
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


# Parameter values by their text: an app sends the same select, order and logic trees with
# ever-changing filter values, and the grammar's backtracking makes a long select cost about
# a millisecond. Entries are shared, never changed (like the QueryParams holding them).
_VALUES = BoundedStore(4096, 8 * 1024 * 1024)
_STORES_LOCK = threading.Lock()  # query strings are also parsed in worker threads: one writer at a time


def _parsed(parser: P.Parser, read: Callable[[str], Any], where: str, text: str, shown: str | None = None) -> Any:
    """A parameter's value: read directly when it can be, else by the grammar."""
    key = (where, text)
    hit = _VALUES.entries.get(key)
    if hit is None:
        hit = read(text)
        if hit is None:
            hit = _run(parser, where, text, shown)
        with _STORES_LOCK:
            _VALUES.put(key, hit, 16 * len(text) + ENTRY_OVERHEAD)  # the text and the objects parsed from it
    return hit


def parse_select(text: str) -> list[SelectItem]:
    items: list[SelectItem] = _parsed(_forest, _read_select, "select parameter", text)
    return items


def parse_order(text: str) -> list[OrderTerm]:
    terms: list[OrderTerm] = _parsed(_order, _read_order, "order", text)
    return terms


# What most filters are, read directly (the grammar gives the same for every text these match):
# a key of plain names, and `[not.]op.value` with an operator taking the rest of the text.
_PLAIN_KEY = re.compile(r"[A-Za-z0-9_$]+(?:\.[A-Za-z0-9_$]+)*")
_PLAIN_OPERATION = re.compile(r"(not\.)?(eq|neq|gte?|lte?|i?like|i?match|cs|cd|ov|sl|sr|nx[rl]|adj|isdistinct|(?:pl|ph|w)?fts)\.(.*)",
                              re.S)
_PLAIN_IS = re.compile(r"(not\.)?is\.(null|not_null|true|false|unknown)", re.S)
_PLAIN_IN = re.compile(r'(not\.)?in\.\(((?:[^"\s,)][^",)]*)?(?:,[^",)]*)*)\)', re.S)
_IN_LIST = re.compile(r"(not\.)?in\.")
# What an operator begins with once the grammar has consumed it (a GET /rpc argument cannot)
_OPERATOR_BEGUN = ("not.", "in.", "is.", "isdistinct.")


def _key_path(key: str) -> tuple[Path, Field]:
    """pTreePath: a parameter's embed path and field (`a.b.name->x`)."""
    if _PLAIN_KEY.fullmatch(key):
        *names, name = key.split(".")
        return tuple(names), Field(name)
    path_field: tuple[Path, Field] = _run(_tree_path, "tree path", key)
    return path_field


def _parse_filter(key: str, value: str, is_rpc_read: bool) -> tuple[Path, Field, Filter | None]:
    """pRequestFilter: the key's embed path and field, then its `[not.]op.value` (None: an
    argument of a GET /rpc call, whose values have no operator)."""
    path, fld = _key_path(key)
    plain = _PLAIN_OPERATION.fullmatch(value)
    if plain:
        return path, fld, Filter(fld, plain[2], plain[3], bool(plain[1]))
    plain = _PLAIN_IS.match(value) or _PLAIN_IN.match(value)  # what follows is ignored, as by the grammar
    if plain:
        if plain[0].startswith(("is", "not.is")):
            return path, fld, Filter(fld, "is", plain[2], bool(plain[1]))
        return path, fld, Filter(fld, "in", plain[2].split(",") if plain[2] else [], bool(plain[1]))
    listed = _IN_LIST.match(value)
    in_list = None if listed is None else _list_at(value, listed.end())  # quoted elements
    if listed is not None and in_list is not None:
        return path, fld, Filter(fld, "in", in_list[0], bool(listed[1]))
    if is_rpc_read and not value.startswith(_OPERATOR_BEGUN):
        # `pOpExpr <|> pure (NoOpExpr v)`: an argument unless an operator was begun
        consumed, ok, _, _, _ = _op_expr(P.State(value), 0)
        if not ok and not consumed:
            return path, fld, None
    expr = _run(_op_expr, "filter", value)
    try:
        return path, fld, _filter(fld, expr)
    except _Bound as exc:
        raise errors.parse_error("filter", value, 1, exc.details) from None


def _logic(key: str, value: str) -> tuple[Path, Logic]:
    """pRequestLogicTree: the key's path (`not` anywhere in it negates), then the tree,
    parsed with the operator glued in front (`or` + `(a.eq.1)`) as PostgREST does."""
    names: list[str] = _run(_logic_path, "logic path", key)
    op = names[-1]
    negated = "not" in names
    tree = _parsed(_logic_tree, _read_logic, "logic tree", ("not." if negated else "") + op + value, value)
    path = tuple(name for name in names[:-1] if name != "not")
    if isinstance(tree, Filter):  # `or=.eq.1` reads as a filter on a column named "or"
        tree = Logic("and", False, [tree])
    return path, tree



def _read_integer(text: str) -> int | None:
    """Haskell's `readMaybe :: Maybe Integer`, which PostgREST reads limit and offset with:
    blanks and parentheses around, a minus sign, decimal, 0x hex or 0o octal digits; anything
    else is no number (PostgREST then ignores the parameter). Bounded as bigint here."""
    s = P.hs_strip(text)
    while len(s) >= 2 and s[0] == "(" and s[-1] == ")":
        s = P.hs_strip(s[1:-1])
    negative = s.startswith("-")
    if negative:
        s = P.hs_strip(s[1:])
    base, digits = 10, "0123456789"
    if len(s) > 2 and s[0] == "0" and s[1] in "xXoO":
        base, digits, s = (16, "0123456789abcdefABCDEF", s[2:]) if s[1] in "xX" else (8, "01234567", s[2:])
    if not s or any(c not in digits for c in s):
        return None
    s = s.lstrip("0") or "0"
    if len(s) > 32 or int(s, base) > MAX_BIGINT:
        raise _Bound(0, f"numbers beyond {MAX_BIGINT} are not accepted")
    value = int(s, base)
    return -value if negative else value


def _top_range(limit: int | None, offset: int | None) -> tuple[int | None, int | None]:
    """The top level's limit and offset as PostgREST computes its range: offset..offset+limit-1
    meets 0..∞, so a negative offset counts from 0 (and shortens the limit). A range that
    comes out empty is PGRST103, but for `limit=0`."""
    start = offset or 0
    lower = max(start, 0)
    if limit is None or limit == 0:
        return limit, (lower if offset is not None else None)
    upper = start + limit - 1
    if upper < lower:
        raise errors.invalid_range("Limit should be greater than or equal to zero.")
    return upper - lower + 1, (lower if offset is not None else None)


_RESERVED = ("select", "columns", "on_conflict")
_RESERVED_EMBEDDABLE = ("order", "limit", "offset", "and", "or")


def query_pairs(query_string: str) -> list[tuple[str, str | None]]:
    """The query string as http-types' parseQueryReplacePlus reads it for PostgREST: pairs
    split at `&` and `;`, `+` a blank, percent-decoded (UTF-8), and a value only after `=`
    (`?a` has none, `?a=` an empty one)."""
    pairs: list[tuple[str, str | None]] = []
    for piece in re.split("[&;]", query_string.removeprefix("?")):
        key, eq, value = piece.partition("=")
        pairs.append((_url_decode(key), _url_decode(value) if eq else None))
    return pairs


def _url_decode(text: str) -> str:
    return unquote(text.replace("+", " "), errors="replace") if "%" in text or "+" in text else text


def parse_query(query_string: str, is_rpc_read: bool = False) -> QueryParams:
    """The query parameters as PostgREST's QueryParams.parse reads them, failing with the
    first error in its order: order, logic trees, columns, select, filters, on_conflict
    (then limit and offset, checked as PostgREST's ranges are)."""
    pairs = query_pairs(query_string)
    given = [(key, value) for key, value in pairs if value is not None]

    def last_word(key: str) -> str:
        return key.rsplit(".", 1)[-1]

    def lookup(name: str) -> str | None:
        return next((value for key, value in pairs if key == name), None)

    qp = QueryParams()
    for key, value in given:
        if last_word(key) == "order":
            path, _ = _key_path(key)
            qp.order[path] = parse_order(value)
    for key, value in given:
        if last_word(key) in ("and", "or"):
            path, tree = _logic(key, value)
            qp.logic.setdefault(path, []).append(tree)
    columns = lookup("columns")
    if columns is not None:
        qp.columns = list(dict.fromkeys(_parsed(_names, _read_names, "columns parameter", columns)))
    select = lookup("select")
    qp.has_select = any(key == "select" for key, _ in pairs)
    if select is not None:
        qp.select = parse_select(select) or [ColumnItem(Field("*"))]  # select= is every column too
    for key, value in given:
        if last_word(key) not in _RESERVED_EMBEDDABLE and key not in _RESERVED:
            path, fld, flt = _parse_filter(key, value, is_rpc_read)
            if flt is None:
                qp.rpc_args.setdefault(fld.name, []).append(value)
            else:
                qp.filters.setdefault(path, []).append(flt)
    on_conflict = lookup("on_conflict")
    if on_conflict is not None:
        qp.on_conflict = _parsed(_names, _read_names, "on_conflict parameter", on_conflict)
    for key, value in given:
        word = last_word(key)
        if word in ("limit", "offset"):
            try:
                number = _read_integer(value)
            except _Bound as exc:
                raise errors.parse_error(f"{word} parameter", value, 1, exc.details) from None
            path, _ = _key_path(key)
            if number is not None:
                (qp.limit if word == "limit" else qp.offset)[path] = number
    if () in qp.limit or () in qp.offset:
        limit, offset = _top_range(qp.limit.pop((), None), qp.offset.pop((), None))
        if limit is not None:
            qp.limit[()] = limit
        if offset is not None:
            qp.offset[()] = offset
    return qp


# -- headers ------------------------------------------------------------------------------

_PREFER_VALUES = {
    "return": {"minimal", "headers-only", "representation"},
    "count": {"exact", "planned", "estimated"},
    "resolution": {"merge-duplicates", "ignore-duplicates"},
    "missing": {"default", "null"},
    "tx": {"commit", "rollback"},
    "handling": {"strict", "lenient"},
    "params": {"single-object", "multiple-objects"},
}


def parse_prefer(values: list[str]) -> Prefer:
    prefer = Prefer()
    for header in values:
        for token in header.split(","):
            token = token.strip()
            if not token:
                continue
            key, _, val = token.partition("=")
            key, val = key.strip(), val.strip().strip('"')
            if key == "max-affected" and bounded_int(val, MAX_BIGINT) is not None:
                prefer.max_affected = bounded_int(val, MAX_BIGINT)
            elif key in ("timezone",):
                continue
            elif key in _PREFER_VALUES and val in _PREFER_VALUES[key]:
                attr = "return_" if key == "return" else key
                if getattr(prefer, attr) is None:
                    setattr(prefer, attr, val)
            else:
                prefer.invalid.append(token)
    if prefer.handling == "strict" and prefer.invalid:
        raise errors.invalid_preferences(prefer.invalid)
    return prefer


def parse_accept(header: str | None, plan_enabled: bool) -> MediaType:
    if not header or not header.strip():
        return MediaType("json")
    offered = []
    for index, part in enumerate(header.split(",")):
        pieces = [p.strip() for p in part.split(";")]
        mime = pieces[0].lower()
        params = {}
        for p in pieces[1:]:
            k, _, v = p.partition("=")
            params[k.strip().lower()] = v.strip().strip('"')
        try:
            q = float(params.get("q", "1"))
        except ValueError:
            q = 1.0
        offered.append((-q, index, mime, params))
    offered.sort()
    for _, _, mime, params in offered:
        stripped = params.get("nulls") == "stripped"
        if mime in ("application/json", "*/*", "application/*"):
            return MediaType("json")
        if mime == "application/vnd.pgrst.array+json" or mime == "application/vnd.pgrst.array":
            return MediaType("json", nulls_stripped=stripped)
        if mime in ("application/vnd.pgrst.object+json", "application/vnd.pgrst.object"):
            return MediaType("object", nulls_stripped=stripped)
        if mime in ("text/csv",):
            return MediaType("csv")
        if mime in ("text/plain", "text/*"):
            return MediaType("text")
        if mime == "application/octet-stream":
            return MediaType("octet")
        if mime == "application/geo+json":
            return MediaType("geojson")
        if plan_enabled and mime in _PLAN_FORMATS:
            requested = params.get("options", "").split("|")
            opts = tuple(o for o in PLAN_OPTIONS if o in requested)
            return MediaType("plan", plan_format=_PLAN_FORMATS[mime], plan_options=opts,
                             plan_for=_plan_for(params.get("for")))
    raise errors.media_type_error([o[2] for o in sorted(offered, key=lambda o: o[1])])


# application/vnd.pgrst.plan is the text plan, as in PostgREST's MediaType.decodeMediaType
_PLAN_FORMATS = {"application/vnd.pgrst.plan": "text", "application/vnd.pgrst.plan+text": "text",
                 "application/vnd.pgrst.plan+json": "json"}
PLAN_OPTIONS = ("analyze", "verbose", "settings", "buffers", "wal")
# media types an EXPLAIN may be `for`, by their mime as the answer names them
_PLAN_TARGETS = {"application/json": MediaType("json"), "text/csv": MediaType("csv"),
                 "application/geo+json": MediaType("geojson"),
                 "application/vnd.pgrst.object+json": MediaType("object"),
                 "application/vnd.pgrst.object+json;nulls=stripped": MediaType("object", nulls_stripped=True),
                 "application/vnd.pgrst.array+json;nulls=stripped": MediaType("json", nulls_stripped=True)}
_PLAN_ALIASES = {"application/vnd.pgrst.object": "application/vnd.pgrst.object+json",
                 "application/vnd.pgrst.array+json": "application/json", "application/vnd.pgrst.array": "application/json"}


def _plan_for(value: str | None) -> str | None:
    """The `for` of a plan media type, normalized (`application/vnd.pgrst.object` names the
    object+json one); None when absent or not a media type a relation produces."""
    if not value:
        return None
    mime = "".join(value.lower().split())
    mime = _PLAN_ALIASES.get(mime, mime)
    return mime if mime in _PLAN_TARGETS else None


def _plan_target(mime: str) -> MediaType:
    return _PLAN_TARGETS[mime]


def parse_range(header: str | None) -> tuple[int, int | None] | None:
    if not header:
        return None
    m = re.fullmatch(r"\s*(?:items=)?(\d+)-(\d*)\s*", header, re.ASCII)
    if not m:
        return None
    lower = bounded_int(m.group(1), MAX_BIGINT)
    upper = bounded_int(m.group(2), MAX_BIGINT) if m.group(2) else None
    if lower is None or (m.group(2) and upper is None):
        raise errors.invalid_range(f"The Range header's bounds must be at most {MAX_BIGINT}.")
    if upper is not None and upper < lower:
        raise errors.invalid_range("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
    return lower, (upper - lower + 1) if upper is not None else None


# -- body ---------------------------------------------------------------------------------

def parse_json_body(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body.strip() else None
    except orjson.JSONDecodeError as exc:
        raise errors.invalid_body("Empty or invalid json") from exc


def parse_csv_body(body: bytes) -> list[dict[str, Any]]:
    """CSV with a header line; the unquoted text NULL is SQL NULL, as in PostgREST."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.invalid_body("Invalid CSV: not UTF-8") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # e.g. a field over csv's 128 KiB field limit
        raise errors.invalid_body(f"Invalid CSV: {exc}") from None
    if not rows:
        return []
    header = rows[0]
    out = []
    for row in rows[1:]:
        if len(row) != len(header):
            raise errors.invalid_body("All lines must have same number of fields")
        out.append({h: (None if v == "NULL" else v) for h, v in zip(header, row, strict=False)})
    return out


def parse_form_body(body: bytes) -> dict[str, str]:
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def parse_payload(content_type: str, body: bytes) -> Any:
    """The body as Python values, by Content-Type (PostgREST's JSON, CSV and form bodies)."""
    if content_type == "text/csv":
        return parse_csv_body(body)
    if content_type == "application/x-www-form-urlencoded":
        return parse_form_body(body)
    if content_type in JSON_TYPES:
        return parse_json_body(body)
    raise errors.media_type_error([content_type])


def body_shape(payload: Any) -> Hashable | None:
    """What of a body shapes the statement: its keys (in order). None: not cacheable.

    The body itself is one bound parameter; only an object, or a non-empty array of objects
    that all have the same keys, is planned the same way for every body of that shape.
    """
    if type(payload) is dict:
        return ("o", tuple(payload))
    if type(payload) is list and payload and all(type(r) is dict for r in payload):
        keys = tuple(payload[0])
        keyset = set(keys)
        if all(len(r) == len(keys) and keyset.issuperset(r) for r in payload[1:]):
            return ("a", keys)
    return None


NO_BODY: tuple[str] = ("-",)  # the body shape of a request without one


def _payload_with_shape(content_type: str, body: bytes) -> tuple[Any, Hashable | None]:
    payload = parse_payload(content_type, body)
    return payload, body_shape(payload)


# -- the whole request ----------------------------------------------------------------------

JSON_TYPES = ("application/json", "", "application/vnd.pgrst.object+json", "application/vnd.pgrst.array+json")
READ_METHODS = ("GET", "HEAD")
RAW_CALL_BODIES = ("text/plain", "text/xml", "application/octet-stream")  # POST /rpc: taken as they are
_MUTATIONS = {"POST": "create", "PATCH": "update", "PUT": "upsert", "DELETE": "delete"}
_METHODS = frozenset((*READ_METHODS, *_MUTATIONS))
_CALL_METHODS = frozenset((*READ_METHODS, "POST"))

# Bodies up to this size parse inline (the usual few-row write stays on the fast path);
# larger ones in a worker thread, so that a 10 MB CSV does not stall every other request.
INLINE_PARSE_BYTES = 64 * 1024


async def parse(method: str, path: str, query_string: str, headers: Mapping[str, str], body: bytes,
                schemas: tuple[str, ...], plan_enabled: bool) -> ApiRequest:
    """The ApiRequest of an HTTP request, in PostgREST's order of checks: method, schema
    (profile headers), resource path, Accept, Prefer, query string, Range, body."""
    if method not in _METHODS:
        raise errors.unsupported_method(method)
    read = method in READ_METHODS
    schema = _schema(headers.get("accept-profile" if read else "content-profile"), schemas)
    stripped = path.strip("/")
    parts = stripped.split("/") if stripped else []
    if "%" in stripped:
        parts = [unquote(p) for p in parts]
    if not parts:
        if not read:
            raise errors.unsupported_method(method)
        action, target = "schema", ""
    elif len(parts) == 2 and parts[0] == "rpc":
        if method not in _CALL_METHODS:
            raise errors.rpc_method(method)
        action, target = "call", parts[1]
    elif len(parts) == 1:
        action, target = ("read" if read else _MUTATIONS[method]), parts[0]
    else:
        raise errors.invalid_resource_path()
    media = _accepted(headers.get("accept"), plan_enabled)
    prefer = _preferences(headers.get("prefer"))
    query = await _query_params(query_string, action == "call" and read) if action != "schema" else QueryParams()
    rng = None
    if (action == "read" or (action == "call" and method == "GET")) and headers.get("range-unit", "items") == "items":
        rng = parse_range(headers.get("range"))
    content_type = ""
    payload: Any = None
    shape: Hashable | None = NO_BODY
    if not read:
        content_type = headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if action == "call" and content_type in RAW_CALL_BODIES:
        shape = None  # the raw body is the argument of a function's one unnamed parameter
    elif not read and action != "delete" and (action != "call" or body.strip()):
        if len(body) <= INLINE_PARSE_BYTES:
            payload, shape = _payload_with_shape(content_type, body)
        else:
            payload, shape = await asyncio.to_thread(_payload_with_shape, content_type, body)
    return ApiRequest(method, action, target, schema, query, prefer, media, rng, content_type, payload, body, shape)


# Accept and Prefer headers by their text: a client sends the same few. The header's size is
# bounded by the HTTP server, the count here.
@functools.lru_cache(maxsize=128)
def _accepted(header: str | None, plan_enabled: bool) -> MediaType:
    return parse_accept(header, plan_enabled)


@functools.lru_cache(maxsize=128)
def _preferences(header: str | None) -> Prefer:
    return parse_prefer(header.split("\n") if header else [])


# Parsed query strings by their text: an app asks the same few URLs again and again, and
# parsing a select tree costs more than the rest of a repeated request's own work. Entries
# are shared, so a QueryParams (like a MediaType or Prefer above) is never changed once parsed. Bounded like every cache of
# what callers send; a query string that fails to parse is not kept.
_QUERIES = BoundedStore(4096, 8 * 1024 * 1024)


# Query strings up to this size parse on the event loop (the direct readings take at most a few
# ms there); longer ones, and those with a long value only the grammar reads, in a worker thread.
INLINE_QUERY_BYTES = 4 * 1024


async def _query_params(query_string: str, is_rpc_read: bool) -> QueryParams:
    hit: QueryParams | None = _QUERIES.entries.get((query_string, is_rpc_read))
    if hit is not None:
        return hit
    if len(query_string) <= INLINE_QUERY_BYTES:
        on_loop = _ON_EVENT_LOOP.set(True)
        try:
            return parsed_query(query_string, is_rpc_read)
        except _Costly:
            pass
        finally:
            _ON_EVENT_LOOP.reset(on_loop)
    return await asyncio.to_thread(parsed_query, query_string, is_rpc_read)


def parsed_query(query_string: str, is_rpc_read: bool) -> QueryParams:
    key = (query_string, is_rpc_read)
    hit: QueryParams | None = _QUERIES.entries.get(key)
    if hit is None:
        hit = parse_query(query_string, is_rpc_read)
        # the text, and its values parsed into Python objects (about twice the text)
        with _STORES_LOCK:
            _QUERIES.put(key, hit, 3 * len(query_string) + ENTRY_OVERHEAD)
    return hit


def _schema(profile: str | None, schemas: tuple[str, ...]) -> str:
    """The schema a request addresses: its Accept-Profile / Content-Profile, else the first."""
    if profile is None:
        return schemas[0]
    if profile not in schemas:
        raise errors.unacceptable_schema(profile, schemas)
    return profile
