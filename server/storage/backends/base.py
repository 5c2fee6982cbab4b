"""The one small interface object bytes go through (supabase/storage's backend adapter)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

CHUNK = 1024 * 1024  # the unit bytes move in: big enough for throughput, small for memory


@dataclass(frozen=True)
class ObjectHead:
    size: int
    etag: str  # quoted, as HTTP sends it
    last_modified: datetime


class Backend(Protocol):
    async def start(self) -> None: ...

    async def close(self) -> None: ...

    async def put(self, key: str, chunks: AsyncIterator[bytes], content_type: str, limit: int) -> ObjectHead:
        """Store the stream under key; raise EntityTooLarge past `limit` bytes, leaving nothing."""
        ...

    def stream(self, key: str, start: int = 0, end: int | None = None) -> AsyncIterator[bytes | memoryview]:
        """Bytes start..end (inclusive; end None: to the last byte), as bytes-like blocks."""
        ...

    async def get(self, key: str, limit: int) -> bytes:
        """The whole object in memory (image transforms); EntityTooLarge past `limit`."""
        ...

    async def head(self, key: str) -> ObjectHead: ...

    async def copy(self, source: str, destination: str) -> ObjectHead: ...

    async def delete(self, key: str) -> None:
        """Remove key; a missing key is not an error."""
        ...


class BackendMissing(Exception):
    """The key has no bytes in the backend."""


class TooLarge(Exception):
    """The stream went past the size limit it was given."""
