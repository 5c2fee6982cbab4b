"""Direct readers of the common forms of select, order, logic trees, names and in-lists:
one regex-guided pass each, so that a long value does not hold the event loop as the
backtracking grammar (grammar.py) would. A reader answers None for whatever it does not
read exactly as the grammar does, and the grammar reads that text instead."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

from server.rest import parsec as P
from server.rest.api_request.bounds import MAX_INT, MAX_JSON_PATH, MAX_NESTING, _Bound, bounded_int
from server.rest.api_request.grammar import _FTS_OPS, _IS_WORDS, _QUANT_OPS, _SIMPLE_OPS, _embed_options, _filter
from server.rest.api_request.types import ColumnItem, EmbedItem, Field, Filter, JsonOp, Logic, OrderTerm, SelectItem

# -- the common grammar, read directly --------------------------------------------------------
# The Parsec grammar (grammar.py) costs tens of microseconds per select item (its alternatives
# backtrack and every step keeps Parsec's error bookkeeping): a long select would hold the
# event loop for tens of milliseconds. Values as clients send them are read here in one
# pass instead, each reader following the grammar step by step. Whenever a reader meets
# what it does not know the grammar reads the same way (an error, an unusual blank or quote,
# a bound), it answers None and the grammar reads the text, giving PostgREST's value or its
# PGRST100. tests/unit/rest/api_request/test_readers.py checks on generated texts that both agree.
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
