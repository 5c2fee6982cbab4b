"""postgres_changes filters: `column=op.value` (eq neq lt lte gt gte in), comma-joined (AND).

They select which changes a binding wants; authorization is not theirs (RLS decides that in
the database). As in Supabase, a row whose column is null, or lacks the column (a DELETE
carries only its primary key), passes the filter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, TypeVar

OPS = ("eq", "neq", "lt", "lte", "gt", "gte", "in")
_FILTER = re.compile(r"^([^=]+)=(not\.)?(eq|neq|lt|lte|gt|gte|in)\.(.*)$", re.DOTALL)


class FilterError(ValueError):
    pass


@dataclass(frozen=True)
class Filter:
    column: str
    op: str
    value: str | tuple[str, ...]  # a tuple for `in`
    negate: bool = False

    def as_json(self) -> dict[str, Any]:
        return {"column": self.column, "op": self.op, "value": list(self.value) if self.op == "in" else self.value}


def _split(text: str) -> list[str]:
    """Split on commas outside double quotes and parentheses."""
    parts: list[str] = []
    current: list[str] = []
    depth, quoted = 0, False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        if ch == "," and depth == 0 and not quoted:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    parts.append("".join(current))
    return [p for p in (part.strip() for part in parts) if p]


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


def parse(text: str | None) -> list[Filter]:
    if not text:
        return []
    filters = []
    for part in _split(text):
        match = _FILTER.match(part)
        if not match:
            raise FilterError(f"invalid filter: {part}")
        column, negate, op, raw = match.group(1).strip(), bool(match.group(2)), match.group(3), match.group(4)
        if op == "in":
            if not (raw.startswith("(") and raw.endswith(")")):
                raise FilterError(f"invalid filter: {part}")
            value: str | tuple[str, ...] = tuple(_unquote(v) for v in _split(raw[1:-1]))
        else:
            value = _unquote(raw)
        filters.append(Filter(column, op, value, negate))
    return filters


_Scalar = TypeVar("_Scalar", float, str)


def _holds(op: str, left: _Scalar, right: _Scalar) -> bool:
    if op == "eq":
        return left == right
    if op == "neq":
        return left != right
    if op == "lt":
        return left < right
    if op == "lte":
        return left <= right
    if op == "gt":
        return left > right
    return left >= right


def _compare(value: Any, f: Filter) -> bool:
    """The row's JSON value against the filter's text read as the value's type, like with like."""
    if isinstance(f.value, tuple):  # `in`: equal to one of the listed values
        return any(_compare(value, Filter(f.column, "eq", v)) for v in f.value)
    text = f.value
    if isinstance(value, bool):  # ordered as numbers, as Python orders False < True
        return _holds(f.op, float(value), float(text.lower() in ("true", "t", "1")))
    if isinstance(value, (int, float)):
        try:
            number = float(text)
        except ValueError:
            return False
        return _holds(f.op, float(value), number)
    return _holds(f.op, value if isinstance(value, str) else str(value), text)


def matches(filters: list[Filter], row: dict[str, Any] | None) -> bool:
    row = row or {}
    for f in filters:
        value = row.get(f.column)
        if value is None:
            continue
        if _compare(value, f) == f.negate:
            return False
    return True
