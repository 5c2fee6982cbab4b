"""postgres_changes subscription parameters as current Realtime reads them, and the messages
it reports about them.

A binding is `{event, schema, table, filter, select}`. `filter` is `column=[not.]op.value`,
comma-joined (AND), op one of OPS; a comma inside parentheses, or inside a double-quoted value
(`name=eq."a,b"`, backslash escaping), does not split. `in.(a,b)` becomes the PostgreSQL array
literal `{a,b}`. Values stay text: PostgreSQL reads them as the column's type when the
subscription is made (which refuses what does not fit) and when a change is checked
(platform_schema/0330). `select` lists the columns a change carries (with the primary key).

The messages are upstream's, including the Elixir `inspect` rendering of the parts it quotes
(`Error parsing \\`filter\\` params: ["foo", "hey"]`) and Postgrex's text of a database error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import psycopg
import psycopg.errors

OPS = ("eq", "neq", "lt", "lte", "gt", "gte", "in", "like", "ilike", "is", "match", "imatch", "isdistinct")

NO_PARAMS = "No subscription params provided. Please provide at least a `schema` or `table` to subscribe to: "
SELECT_NOT_A_LIST = ('Error parsing `select` params: expected a list of column name strings,'
                     ' e.g. select: ["col1", "col2"]')
SELECT_ON_WILDCARD = ("Column selection is not supported for wildcard subscriptions."
                      " Provide an explicit schema and table name.")

# What Elixir's String.trim/1 removes: Unicode White_Space.
_WHITESPACE = "\t\n\v\f\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a" \
              "\u2028\u2029\u202f\u205f\u3000"


class FilterError(ValueError):
    """A filter string upstream refuses; the text is its reason."""


class ParamsError(ValueError):
    """A binding upstream refuses before touching the database; the text is its message."""


@dataclass(frozen=True)
class Filter:
    column: str
    op: str
    value: str  # `in`: a PostgreSQL array literal
    negate: bool = False

    def as_json(self) -> dict[str, Any]:
        """A realtime.subscription.filters element."""
        return {"column_name": self.column, "op": self.op, "value": self.value, "negate": self.negate}


@dataclass(frozen=True)
class Params:
    event: str  # "*", "INSERT", "UPDATE" or "DELETE"
    schema: str  # "*": every schema
    table: str  # "*": every table
    filters: tuple[Filter, ...]
    select: tuple[str, ...] | None  # None: every column; () the primary key only

    def log_text(self) -> str:
        """How upstream names the binding in its messages."""
        filters = [_Tuple((f.column, f.op, f.value, f.negate)) for f in self.filters]
        select = None if self.select is None else list(self.select)
        return (f"event: {self.event}, schema: {self.schema}, table: {self.table},"
                f" filters: {inspect(filters)}, select: {inspect(select)}")


# -- filter strings ---------------------------------------------------------------------------

def _split_top_level(text: str) -> list[str]:
    """Split on commas outside parentheses and outside a quoted value (a `"` opens one only
    after `.`, `(` or `,`; inside, a backslash keeps the next character)."""
    parts: list[str] = []
    current: list[str] = []
    depth, quoted, prev, i = 0, False, "", 0
    while i < len(text):
        ch = text[i]
        if quoted:
            if ch == "\\" and i + 1 < len(text):
                current += (ch, text[i + 1])
                prev = text[i + 1]
                i += 2
                continue
            quoted = ch != '"'
        elif ch == '"' and prev in (".", "(", ","):
            quoted = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current, prev, i = [], "", i + 1
            continue
        current.append(ch)
        prev = ch
        i += 1
    parts.append("".join(current))
    return parts


def _unquote(value: str) -> str:
    """`"a,b"` is `a,b` (backslash escapes); a value that is not exactly one quoted string stays."""
    if not value.startswith('"'):
        return value
    out: list[str] = []
    i = 1
    while i < len(value):
        ch = value[i]
        if ch == '"':
            return "".join(out) if i == len(value) - 1 else value
        if ch == "\\" and i + 1 < len(value):
            out.append(value[i + 1])
            i += 2
            continue
        out.append(ch)
        i += 1
    return value


def _segment(segment: str) -> Filter:
    text = segment.strip(_WHITESPACE)
    if not text:
        raise FilterError("filter must not contain empty segments (check for extra commas)")
    if "=" not in text:
        raise FilterError(inspect([text]))
    column, rest = text.split("=", 1)
    negate = rest.startswith("not.")
    op_value = rest[4:] if negate else rest
    if "." not in op_value:
        raise FilterError(inspect([op_value]))
    op, value = op_value.split(".", 1)
    if op not in OPS:
        raise FilterError(inspect([op, value]))
    if op == "in":
        if not (len(value) >= 2 and value[0] == "(" and value[-1] == ")"):
            raise FilterError("`in` filter value must be wrapped by parentheses")
        return Filter(column, op, "{" + value[1:-1] + "}", negate)
    return Filter(column, op, _unquote(value), negate)


def parse_filter(text: str) -> list[Filter]:
    """The filters of a `filter` string (empty: none); FilterError with upstream's reason."""
    text = text.strip(_WHITESPACE)
    if not text:
        return []
    return [_segment(part) for part in _split_top_level(text)]


# -- bindings ----------------------------------------------------------------------------------

def _event(params: dict[str, Any]) -> str:
    event = params.get("event")
    if isinstance(event, str) and event.upper() in ("INSERT", "UPDATE", "DELETE"):
        return event.upper()
    return "*"


def _select(params: dict[str, Any]) -> tuple[str, ...] | None:
    select = params.get("select")
    if isinstance(select, list):
        return tuple(c for c in select if isinstance(c, str))
    if isinstance(select, str):
        raise ParamsError(SELECT_NOT_A_LIST)
    return None


def parse_params(params: dict[str, Any]) -> Params:
    """A postgres_changes binding as upstream's parse_subscription_params reads it."""
    event, select = _event(params), _select(params)
    schema, table, text = params.get("schema"), params.get("table"), params.get("filter")
    filters: list[Filter] = []
    if isinstance(schema, str) and isinstance(table, str) and isinstance(text, str):
        try:
            filters = parse_filter(text)
        except FilterError as exc:
            raise ParamsError(f"Error parsing `filter` params: {exc}") from None
    elif isinstance(schema, str) and isinstance(table, str) and "filter" not in params:
        pass
    elif isinstance(schema, str) and "table" not in params and "filter" not in params:
        table = "*"
    elif isinstance(table, str) and "schema" not in params and "filter" not in params:
        schema = "public"
    elif "user_token" in params or "auth_token" in params:
        raise ParamsError(NO_PARAMS + "<redacted>")
    else:
        raise ParamsError(NO_PARAMS + inspect(params))
    assert isinstance(schema, str) and isinstance(table, str)
    if select is not None and "*" in (schema, table):
        raise ParamsError(SELECT_ON_WILDCARD)
    return Params(event, schema, table, tuple(filters), select)


def db_error_text(exc: psycopg.Error) -> str:
    """Postgrex's Exception.message of a database error: `ERROR 42703 (undefined_column) ...`."""
    diag = exc.diag
    code = exc.sqlstate or ""
    cls = psycopg.errors.lookup(code) if code else None
    name = "".join("_" + c.lower() if c.isupper() else c for c in cls.__name__).lstrip("_") if cls else code
    text = f"{diag.severity_nonlocalized or diag.severity or 'ERROR'} {code} ({name}) {diag.message_primary or exc}"
    metadata = [(k, v) for k, v in (("table", diag.table_name), ("column", diag.column_name),
                                    ("constraint", diag.constraint_name), ("hint", diag.message_hint)) if v]
    if metadata:
        text += "\n" + "".join(f"\n    {k}: {v}" for k, v in metadata)
    if diag.message_detail:
        text += "\n\n" + diag.message_detail
    return text


# -- Elixir's inspect(value, pretty: true) ------------------------------------------------------

_WIDTH = 80
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r", "\v": "\\v", "\b": "\\b",
            "\f": "\\f", "\x1b": "\\e", "\x07": "\\a"}


class _Tuple(tuple[Any, ...]):
    """An Elixir tuple (rendered `{a, b}`), as opposed to a list."""


def _printable(text: str) -> bool:
    return all(ch in _ESCAPES or " " <= ch <= "~" or (ch >= "\xa0" and not "\ud800" <= ch <= "\udfff")
               for ch in text)


def _flat(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if not _printable(value):
            return "<<" + ", ".join(str(b) for b in value.encode("utf-8", "surrogatepass")) + ">>"
        escaped = "".join(_ESCAPES.get(ch, ch) for ch in value).replace("#{", "\\#{")
        return f'"{escaped}"'
    left, right, items = _container(value)
    return left + ", ".join(items) + right


def _container(value: Any) -> tuple[str, str, list[str]]:
    if isinstance(value, _Tuple):
        return "{", "}", [_flat(v) for v in value]
    if isinstance(value, dict):
        return "%{", "}", [f"{_flat(k)} => {_flat(v)}" for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))]
    return "[", "]", [_flat(v) for v in value]


def _simple(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


def _pretty(value: Any, column: int) -> str:
    flat = _flat(value)
    if _simple(value) or len(flat) <= _WIDTH - column or not value:
        return flat
    left, right, _ = _container(value)
    children = list(value.items()) if isinstance(value, dict) else list(value)
    if all(_simple(c) for c in children):
        # Elements that are all simple flow as words, continued lines indented by one.
        words = [_flat(c) + ("," if n < len(children) - 1 else right) for n, c in enumerate(children)]
        lines, line = [], left + words[0]
        for word in words[1:]:
            if column + len(line) + 1 + len(word) > _WIDTH:
                lines.append(line)
                line = " " + word
            else:
                line += " " + word
        return ("\n" + " " * column).join([*lines, line])
    # Otherwise one element a line, indented by two.
    rendered = []
    for child in children:
        if isinstance(value, dict):
            key, item = child
            rendered.append(f"{_flat(key)} => {_pretty(item, column + 2 + len(_flat(key)) + 4)}")
        else:
            rendered.append(_pretty(child, column + 2))
    pad = "\n" + " " * (column + 2)
    return left + pad + ("," + pad).join(rendered) + "\n" + " " * column + right


def inspect(value: Any) -> str:
    """Elixir's `inspect(value, pretty: true)` for the JSON-like values messages quote."""
    return _pretty(value, 0)
