"""A store bounded in entries and in bytes, for the caches of what callers send (tokens, URLs,
headers): the oldest entries go first, and an entry too large for its store is not kept at
all (the request is simply served uncached)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

# Rough cost in bytes of an entry's Python objects besides its strings (dicts, tuples, ...).
ENTRY_OVERHEAD = 1024


class BoundedStore:
    """A dict bounded in entries and in bytes; the oldest entries are dropped first.

    `get` is a plain dict lookup (the hot path); sizes are only looked at on `put`.
    """

    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_bytes // 16
        self.entries: dict[Hashable, Any] = {}
        self._sizes: dict[Hashable, int] = {}
        self.bytes = 0

    def put(self, key: Hashable, entry: Any, size: int) -> bool:
        """Keep `entry` (False when it alone is too large to be worth keeping)."""
        if size > self.max_entry_bytes:
            return False
        self.pop(key)
        while self.entries and (len(self.entries) >= self.max_entries or self.bytes + size > self.max_bytes):
            self.pop(next(iter(self.entries)))
        self.entries[key] = entry
        self._sizes[key] = size
        self.bytes += size
        return True

    def pop(self, key: Hashable) -> None:
        if key in self.entries:
            del self.entries[key]
            self.bytes -= self._sizes.pop(key)

    def clear(self) -> None:
        self.entries.clear()
        self._sizes.clear()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.entries)


def key_size(key: Hashable) -> int:
    """Bytes held by a cache key: a tuple of strings (and None), or a string."""
    if isinstance(key, str):
        return len(key)
    if isinstance(key, tuple):
        return sum(key_size(k) for k in key) + 8 * len(key)
    return 16
