"""The string order of the generated file: `Intl.Collator("en")`, as upstream sorts.

postgres-meta orders tables, columns, functions... with an English ICU collator, not by code
point: case and accents only break ties (`a_table` < `Zeta` < `zeta_2`), punctuation sorts
before digits and digits before letters (`user_sessions` < `users`). This reproduces the
root collation for the characters identifiers and labels use; anything rarer falls back to
code point order after the letters.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import cmp_to_key
from typing import TypeVar

T = TypeVar("T")

# Primary order of ASCII punctuation and symbols in the root collation (all before digits).
_SYMBOLS = "\t\n\v\f\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_SYMBOL_RANK = {ch: i for i, ch in enumerate(_SYMBOLS)}
_DIGIT_BASE = 1000
_LETTER_BASE = 2000
_OTHER_BASE = 10000


def _primary(ch: str) -> int:
    if ch in _SYMBOL_RANK:
        return _SYMBOL_RANK[ch]
    if ch.isdigit() and ch.isascii():
        return _DIGIT_BASE + ord(ch) - ord("0")
    if ch.isascii() and ch.isalpha():
        return _LETTER_BASE + ord(ch.lower()) - ord("a")
    return _OTHER_BASE + ord(ch.lower())


def collation_key(text: str) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Primary (base letters), secondary (accents), tertiary (case: lower before upper)."""
    primary: list[int] = []
    secondary: list[int] = []
    tertiary: list[int] = []
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            if secondary:
                secondary[-1] = secondary[-1] * 1000 + ord(ch) % 1000
            continue
        primary.append(_primary(ch))
        secondary.append(0)
        tertiary.append(1 if ch != ch.lower() else 0)
    return tuple(primary), tuple(secondary), tuple(tertiary)


def compare(a: str, b: str) -> int:
    ka, kb = collation_key(a), collation_key(b)
    return (ka > kb) - (ka < kb)


def sort_by(items: Iterable[T], *keys: Callable[[T], str]) -> list[T]:
    """Stable sort on several string keys in turn, each compared with the collation."""
    def cmp(x: T, y: T) -> int:
        for key in keys:
            result = compare(key(x), key(y))
            if result:
                return result
        return 0

    return sorted(items, key=cmp_to_key(cmp))
