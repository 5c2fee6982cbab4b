"""The query string as PostgREST's ApiRequest/QueryParams.hs reads it: pairs, filters, logic
trees, order, columns, on_conflict, limit and offset, into a QueryParams; with the caches of
parsed values and of whole query strings (shared between requests, so never changed once
parsed), and the choice of parsing on the event loop or in a worker thread."""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from server.core.bounded_store import ENTRY_OVERHEAD, BoundedStore
from server.rest import errors
from server.rest import parsec as P
from server.rest.api_request.bounds import MAX_BIGINT, _Bound
from server.rest.api_request.grammar import (
    _ON_EVENT_LOOP,
    _Costly,
    _filter,
    _forest,
    _logic_path,
    _logic_tree,
    _names,
    _op_expr,
    _order,
    _run,
    _tree_path,
)
from server.rest.api_request.readers import _list_at, _read_logic, _read_names, _read_order, _read_select
from server.rest.api_request.types import ColumnItem, Field, Filter, Logic, OrderTerm, Path, QueryParams, SelectItem

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

    order: dict[Path, list[OrderTerm]] = {}
    logic: dict[Path, list[Logic]] = {}
    filters: dict[Path, list[Filter]] = {}
    rpc_args: dict[str, list[str]] = {}
    limits: dict[Path, int] = {}
    offsets: dict[Path, int] = {}
    for key, value in given:
        if last_word(key) == "order":
            path, _ = _key_path(key)
            order[path] = parse_order(value)
    for key, value in given:
        if last_word(key) in ("and", "or"):
            path, tree = _logic(key, value)
            logic.setdefault(path, []).append(tree)
    columns_text = lookup("columns")
    columns = None if columns_text is None else list(dict.fromkeys(_parsed(_names, _read_names, "columns parameter", columns_text)))
    select_text = lookup("select")
    has_select = any(key == "select" for key, _ in pairs)
    select: list[SelectItem] = [ColumnItem(Field("*"))]
    if select_text is not None:
        select = parse_select(select_text) or select  # select= is every column too
    for key, value in given:
        if last_word(key) not in _RESERVED_EMBEDDABLE and key not in _RESERVED:
            path, fld, flt = _parse_filter(key, value, is_rpc_read)
            if flt is None:
                rpc_args.setdefault(fld.name, []).append(value)
            else:
                filters.setdefault(path, []).append(flt)
    on_conflict_text = lookup("on_conflict")
    on_conflict: list[str] | None = None
    if on_conflict_text is not None:
        on_conflict = _parsed(_names, _read_names, "on_conflict parameter", on_conflict_text)
    for key, value in given:
        word = last_word(key)
        if word in ("limit", "offset"):
            try:
                number = _read_integer(value)
            except _Bound as exc:
                raise errors.parse_error(f"{word} parameter", value, 1, exc.details) from None
            path, _ = _key_path(key)
            if number is not None:
                (limits if word == "limit" else offsets)[path] = number
    if () in limits or () in offsets:
        limit, offset = _top_range(limits.pop((), None), offsets.pop((), None))
        if limit is not None:
            limits[()] = limit
        if offset is not None:
            offsets[()] = offset
    return QueryParams(select, filters, logic, order, limits, offsets, columns, on_conflict, rpc_args, has_select)


# Parsed query strings by their text: an app asks the same few URLs again and again, and
# parsing a select tree costs more than the rest of a repeated request's own work. Entries
# are shared, so a QueryParams (like the MediaType and Prefer of preferences.py) is never changed once parsed. Bounded like every cache of
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
