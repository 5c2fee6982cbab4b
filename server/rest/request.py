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
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote

import orjson

from server.bounded_store import ENTRY_OVERHEAD, BoundedStore
from server.rest import errors

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


# -- small lexical helpers ----------------------------------------------------------------

_NAME_RE = re.compile(r'(?:[^\s,:()!.>"*\-]|-(?!>))+')
_INDEX_RE = re.compile(r"-?[0-9]+(?![\w$])")


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


class _Cursor:
    """A position in a string, for the recursive-descent parsers below."""

    def __init__(self, text: str, where: str) -> None:
        self.text = text
        self.pos = 0
        self.where = where

    def peek(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def eat(self, s: str) -> bool:
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def done(self) -> bool:
        return self.pos >= len(self.text)

    def fail(self, expected: str) -> errors.ApiError:
        rest = self.text[self.pos:]
        found = f'unexpected "{rest[0]}"' if rest else "unexpected end of input"
        return errors.parse_error(self.where, self.text, self.pos + 1, f"{found} expecting {expected}")

    def too_deep(self, what: str) -> errors.ApiError:
        return errors.parse_error(self.where, self.text, self.pos + 1, f"{what} are not accepted")

    def skip_spaces(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1

    def name(self) -> str:
        self.skip_spaces()
        if self.peek('"'):
            return self.quoted()
        m = _NAME_RE.match(self.text, self.pos)
        if not m:
            raise self.fail("field name")
        self.pos = m.end()
        return m.group(0).strip()

    def quoted(self) -> str:
        self.eat('"')
        out = []
        while True:
            if self.done():
                raise self.fail('closing "')
            ch = self.text[self.pos]
            self.pos += 1
            if ch == "\\" and not self.done():
                out.append(self.text[self.pos])
                self.pos += 1
            elif ch == '"':
                return "".join(out)
            else:
                out.append(ch)

    def json_path(self) -> tuple[JsonOp, ...]:
        ops: list[JsonOp] = []
        while self.peek("->"):
            if len(ops) == MAX_JSON_PATH:
                raise self.too_deep(f"JSON paths longer than {MAX_JSON_PATH} steps")
            arrow = "->>" if self.eat("->>") else ("->" if self.eat("->") else "")
            m = _INDEX_RE.match(self.text, self.pos)
            if m:
                if bounded_int(m.group(0).lstrip("-"), MAX_INT) is None:
                    raise self.fail("array index within the int range")
                self.pos = m.end()
                ops.append(JsonOp(arrow, m.group(0), True))
            else:
                ops.append(JsonOp(arrow, self.name()))
        return tuple(ops)

    def field(self) -> Field:
        return Field(self.name(), self.json_path())


# -- select -------------------------------------------------------------------------------

def parse_select(text: str) -> list[SelectItem]:
    cur = _Cursor(text, "select")
    items = _select_items(cur, 0)
    if not cur.done():
        raise cur.fail('"," or end of input')
    return items


def _select_items(cur: _Cursor, depth: int) -> list[SelectItem]:
    items: list[SelectItem] = []
    while True:
        items.append(_select_item(cur, depth))
        cur.skip_spaces()
        if not cur.eat(","):
            return items


_CAST_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_ ]*(\[\])?")


def _cast(cur: _Cursor) -> str | None:
    if not cur.eat("::"):
        return None
    m = _CAST_RE.match(cur.text, cur.pos)
    if not m:
        raise cur.fail("cast type")
    cur.pos = m.end()
    return m.group(0).strip()


def _select_item(cur: _Cursor, depth: int) -> SelectItem:
    cur.skip_spaces()
    spread = cur.eat("...")
    if not spread and cur.eat("*"):
        return ColumnItem(Field("*"))
    first = cur.name()
    alias = None
    if cur.peek(":") and not cur.peek("::"):
        cur.eat(":")
        alias, first = first, cur.name()
    if not spread and first in AGGREGATES and cur.peek("()"):
        cur.eat("()")
        return ColumnItem(Field("*"), alias, aggregate_cast=_cast(cur), aggregate=first)
    if spread or cur.peek("!") or cur.peek("("):
        embed = EmbedItem(first, alias, spread=spread)
        while cur.eat("!"):
            hint = cur.name()
            if hint in ("inner", "left"):
                embed.join = hint
            else:
                embed.hint = hint
        if not cur.eat("("):
            raise cur.fail('"("')
        if depth == MAX_NESTING:
            raise cur.too_deep(f"embeds nested more than {MAX_NESTING} levels deep")
        cur.skip_spaces()
        embed.items = [] if cur.peek(")") else _select_items(cur, depth + 1)
        if not cur.eat(")"):
            raise cur.fail('")"')
        return embed
    item = ColumnItem(Field(first, cur.json_path()), alias)
    item.cast = _cast(cur)
    if cur.peek(".") and not cur.peek(".."):
        save = cur.pos
        cur.eat(".")
        agg = cur.name()
        if agg in AGGREGATES and cur.eat("()"):
            item.aggregate = agg
            item.aggregate_cast = _cast(cur)
        else:
            cur.pos = save
            raise cur.fail("aggregate function")
    return item


# -- filters and logic trees --------------------------------------------------------------

_OP_RE = re.compile(r"(not\.)?([a-z]+)(?:\(([a-z0-9_]+)\))?\.", re.S)


def is_operator_value(value: str) -> bool:
    m = _OP_RE.match(value)
    return bool(m and m.group(2) in OPERATORS)


def parse_filter_value(fld: Field, value: str, key: str) -> Filter:
    """`[not.]op[(mod)].value` -> Filter (value in `in` is a list; `is` a keyword)."""
    m = _OP_RE.match(value)
    if not m or m.group(2) not in OPERATORS:
        # `not.is.null` style without trailing value is handled by the regex; anything else fails
        raise errors.parse_error("filter", value, 1, "unexpected end of input expecting operator (eq, gt, ...)"
                                 if "." not in value else f'unexpected "{value[:1]}" expecting "not" or operator (eq, gt, ...)')
    negate, op, modifier = bool(m.group(1)), m.group(2), m.group(3)
    raw = value[m.end():]
    quantifier = language = None
    if modifier:
        if op in FTS:
            language = modifier
        elif op in QUANTIFIABLE and modifier in ("any", "all"):
            quantifier = modifier
        else:
            raise errors.parse_error("filter", value, len(op) + 2, f'unexpected "{modifier[:1]}" expecting "any" or "all"')
    parsed: Any = raw
    if op == "in":
        parsed = parse_list(raw, value)
    elif op == "is":
        word = raw.lower()
        if word not in IS_VALUES:
            raise errors.parse_error("filter", value, 4,
                                     'unexpected "' + raw[:1] + '" expecting null or trilean value (unknown, true, false)')
        parsed = word
    elif quantifier:
        parsed = parse_list(raw, value, braces=True)
    return Filter(fld, op, parsed, negate, quantifier, language)


def parse_list(raw: str, whole: str, braces: bool = False) -> list[str]:
    """`(a,"b,c",d)` (or `{a,b}` for any/all) -> ['a', 'b,c', 'd']."""
    open_, close = ("{", "}") if braces else ("(", ")")
    if not (raw.startswith(open_) and raw.endswith(close)):
        raise errors.parse_error("filter", whole, 1, f'unexpected end of input expecting "{open_}"'
                                 if not raw.startswith(open_) else f'expecting "{close}"')
    inner = raw[1:-1]
    if inner == "":
        return []
    return split_top(inner, strip_quotes=True)


def split_top(text: str, strip_quotes: bool = False) -> list[str]:
    """Split at commas outside quotes and parentheses/braces."""
    parts: list[str] = []
    buf: list[str] = []
    depth = 0
    quoted = False
    i = 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\" and i + 1 < len(text):
                buf.append(ch if not strip_quotes else "")
                buf.append(text[i + 1])
                i += 2
                continue
            if ch == '"':
                quoted = False
                if strip_quotes:
                    i += 1
                    continue
            buf.append(ch)
        elif ch == '"':
            quoted = True
            if not strip_quotes:
                buf.append(ch)
        elif ch in "({":
            depth += 1
            buf.append(ch)
        elif ch in ")}":
            depth -= 1
            buf.append(ch)
        elif ch == "," and depth == 0:
            parts.append("".join(buf))
            buf = []
        else:
            buf.append(ch)
        i += 1
    parts.append("".join(buf))
    return parts


def parse_logic(op: str, negate: bool, value: str, key: str, depth: int = 1) -> Logic:
    """`(a.eq.1,or(b.gt.2,c.is.null))` -> Logic tree."""
    if depth > MAX_NESTING:
        raise errors.parse_error("logic tree", value, 1, f"and()/or() nested more than {MAX_NESTING} levels deep are not accepted")
    text = value.strip()
    if not (text.startswith("(") and text.endswith(")")):
        raise errors.parse_error("logic tree", value, 1,
                                 'unexpected "' + text[:1] + '" expecting "("' if text else 'unexpected end of input expecting "("')
    children: list[Logic | Filter] = []
    for part in split_top(text[1:-1]):
        part = part.strip()
        m = re.match(r"(not\.)?(and|or)\(", part)
        if m:
            children.append(parse_logic(m.group(2), bool(m.group(1)), part[m.end() - 1:], key, depth + 1))
            continue
        cur = _Cursor(part, "logic tree")
        try:
            fld = cur.field()
        except errors.ApiError:
            raise errors.parse_error("logic tree", value, 1, "unexpected end of input expecting field name") from None
        if not cur.eat("."):
            raise errors.parse_error("logic tree", value, len(part) + 2, 'unexpected end of input expecting "->", "." or operator')
        rest = part[cur.pos:]
        filt = parse_filter_value(fld, rest, key)
        if isinstance(filt.value, str) and len(filt.value) >= 2 and filt.value.startswith('"') and filt.value.endswith('"'):
            filt.value = filt.value[1:-1]
        children.append(filt)
    return Logic(op, negate, children)


# -- order --------------------------------------------------------------------------------

def parse_order(value: str) -> list[OrderTerm]:
    terms = []
    for part in split_top(value):
        cur = _Cursor(part, "order")
        relation = None
        name = cur.name()
        if cur.eat("("):
            relation = name
            fld = cur.field()
            if not cur.eat(")"):
                raise cur.fail('")"')
        else:
            fld = Field(name, cur.json_path())
        term = OrderTerm(fld, relation=relation)
        while cur.eat("."):
            word = cur.name()
            if word in ("asc", "desc") and term.direction is None and term.nulls is None:
                term.direction = word
            elif word in ("nullsfirst", "nullslast") and term.nulls is None:
                term.nulls = word[5:]
            else:
                raise errors.parse_error("order", value, cur.pos + 1,
                                         f'unexpected "{word[:1]}" expecting "asc", "desc", "nullsfirst" or "nullslast"')
        if not cur.done():
            raise cur.fail('"," or end of input')
        terms.append(term)
    return terms


# -- the query string ---------------------------------------------------------------------

def _split_key(key: str) -> tuple[Path, str, str]:
    """`a.b.order` -> (('a','b'), 'order', ''); `a.data->x` -> (('a',), 'data', '->x')."""
    head, arrow, tail = key.partition("->")
    parts = head.split(".")
    return tuple(parts[:-1]), parts[-1], (arrow + tail) if arrow else ""


def _nonneg_int(value: str, what: str) -> int:
    if not re.fullmatch(r"\d+", value.strip(), re.ASCII):
        raise errors.parse_error(f"{what} parameter", value, 1,
                                 'unexpected "' + value[:1] + '" expecting digit' if value else "unexpected end of input expecting digit")
    number = bounded_int(value.strip(), MAX_BIGINT)
    if number is None:
        raise errors.parse_error(f"{what} parameter", value, 1, f"{what} must be at most {MAX_BIGINT}")
    return number


def parse_query(query_string: str, is_rpc_read: bool = False) -> QueryParams:
    qp = QueryParams()
    for key, value in parse_qsl(query_string, keep_blank_values=True):
        path, last, jtail = _split_key(key)
        if key == "select":
            qp.select = parse_select(value) if value.strip() else [ColumnItem(Field("*"))]
            qp.has_select = True
        elif key == "columns":
            qp.columns = [c.strip().strip('"') for c in split_top(value) if c.strip()]
        elif key == "on_conflict":
            qp.on_conflict = [c.strip().strip('"') for c in value.split(",") if c.strip()]
        elif not jtail and last == "order":
            qp.order[path] = parse_order(value)
        elif not jtail and last == "limit":
            qp.limit[path] = _nonneg_int(value, "limit")
        elif not jtail and last == "offset":
            qp.offset[path] = _nonneg_int(value, "offset")
        elif not jtail and last in ("and", "or"):
            negate = bool(path) and path[-1] == "not"
            lpath = path[:-1] if negate else path
            qp.logic.setdefault(lpath, []).append(parse_logic(last, negate, value, key))
        else:
            if is_rpc_read and not path and not jtail and not is_operator_value(value):
                qp.rpc_args.setdefault(last, []).append(value)
                continue
            cur = _Cursor(last + jtail, "filter")
            fld = cur.field()
            if not cur.done():
                raise cur.fail("end of field")
            qp.filters.setdefault(path, []).append(parse_filter_value(fld, value, key))
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
    query = parsed_query(query_string, action == "call" and read) if action != "schema" else QueryParams()
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


def parsed_query(query_string: str, is_rpc_read: bool) -> QueryParams:
    key = (query_string, is_rpc_read)
    hit: QueryParams | None = _QUERIES.entries.get(key)
    if hit is None:
        hit = parse_query(query_string, is_rpc_read)
        # the text, and its values parsed into Python objects (about twice the text)
        _QUERIES.put(key, hit, 3 * len(query_string) + ENTRY_OVERHEAD)
    return hit


def _schema(profile: str | None, schemas: tuple[str, ...]) -> str:
    """The schema a request addresses: its Accept-Profile / Content-Profile, else the first."""
    if profile is None:
        return schemas[0]
    if profile not in schemas:
        raise errors.unacceptable_schema(profile, schemas)
    return profile
