"""The bounds on what a request may nest or count, far beyond any real query: parsing
recursion stays well inside Python's stack, the SQL inside PostgreSQL's max_stack_depth,
and numbers inside what PostgreSQL binds. Shared by the grammar, the direct readers and
the header readers, so it sits below them all."""

from __future__ import annotations

# Bounds on what a URL may nest, far beyond any real query: parsing recursion stays well
# inside Python's stack, and the SQL inside PostgreSQL's max_stack_depth.
MAX_NESTING = 32  # embeds in `select`, and()/or() in logic trees
MAX_JSON_PATH = 64  # `->` / `->>` steps of one field
MAX_BIGINT = 2**63 - 1  # limit, offset, Range and max-affected: PostgreSQL's bigint
MAX_INT = 2**31 - 1  # a JSON array index (bound as int)


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
