"""The fuzzy string match PostgREST's hints use (the Haskell fuzzyset package, default set:
2- and 3-grams, Levenshtein rescoring), so that "Perhaps you meant ..." names what PostgREST
would name.

A lookup first tries an exact (case-insensitive) match; otherwise, for gram sizes 3 then 2,
the entries sharing a gram with the query are scored by the cosine of their gram vectors,
the best 50 rescored by normalized Levenshtein similarity, and those at or above the minimum
score kept, best first; the first gram size giving any result decides.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

_GRAM_SIZES = (3, 2)


def closest(query: str, entries: Iterable[str], min_score: float = 0.33) -> str | None:
    """The entry most like `query` with a score of at least `min_score`, else None."""
    exact: dict[str, str] = {}
    for entry in entries:
        exact.setdefault(entry.lower(), entry)  # the first of entries equal but for case
    key = query.lower()
    if key in exact:
        return exact[key]
    for size in _GRAM_SIZES:
        query_grams = _gram_vector(key, size)
        query_norm = _norm(query_grams)
        scored = []
        for entry_key, entry in exact.items():
            grams = _gram_vector(entry_key, size)
            shared = sum(count * grams[g] for g, count in query_grams.items() if g in grams)
            if shared:
                scored.append((shared / (query_norm * _norm(grams)), entry_key, entry))
        scored.sort(key=lambda s: -s[0])
        rescored = [(_similarity(key, entry_key), entry) for _, entry_key, entry in scored[:50]]
        rescored.sort(key=lambda s: -s[0])
        kept = [entry for score, entry in rescored if score >= min_score]
        if kept:
            return kept[0]
    return None


def _normalized(text: str) -> str:
    """Lower case, keeping only letters, digits, blanks and commas."""
    return "".join(c for c in text.lower() if c.isalnum() or c.isspace() or c == ",")


def _gram_vector(text: str, size: int) -> Counter[str]:
    padded = "-" + _normalized(text) + "-"
    return Counter(padded[i:i + size] for i in range(len(padded) - size + 1))


def _norm(vector: Counter[str]) -> float:
    return math.sqrt(sum(count * count for count in vector.values()))


def _similarity(a: str, b: str) -> float:
    """1 - Levenshtein distance / the longer length (text-metrics' levenshteinNorm)."""
    longest = max(len(a), len(b))
    return 1.0 if longest == 0 else 1 - _levenshtein(a, b) / longest


def _levenshtein(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]
