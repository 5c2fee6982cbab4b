"""The one small interface object bytes go through (supabase/storage's backend adapter)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

CHUNK = 1024 * 1024  # the unit bytes move in: big enough for throughput, small for memory

# What a backend keeps about a resumable upload between requests (JSON, stored by the
# caller in the upload's row): {} for files, the multipart upload and its parts for S3.
PartState = dict[str, Any]
# Called by `resumable_append` at each durable point with the state and the offset
# reached: the caller records them before the next durable point.
OnDurable = Callable[[PartState, int], Awaitable[None]]


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

    # -- resumable uploads: bytes appended over several requests, then placed at `key` --
    # `scratch` names the upload's scratch bytes ([0-9a-f]{32}); `key` is where the object
    # will live once complete. Offsets are the caller's (its row): an append starts at
    # `offset`, and bytes a crashed request wrote past it are dropped.

    async def resumable_open(self, scratch: str, key: str, content_type: str, cache_control: str) -> PartState:
        """Start an empty upload; the state to keep."""
        ...

    async def resumable_append(self, scratch: str, key: str, state: PartState, offset: int,
                               chunks: AsyncIterator[bytes], final: int, on_durable: OnDurable) -> tuple[PartState, int]:
        """Append the stream at `offset` (the stream never goes past `final`, the upload's
        length); everything it gave is durable on return: (state, new offset)."""
        ...

    async def resumable_complete(self, scratch: str, key: str, state: PartState) -> ObjectHead:
        """Place the finished upload's bytes at `key`; the scratch bytes are gone."""
        ...

    async def resumable_abort(self, scratch: str, key: str, state: PartState) -> None:
        """Drop an unfinished upload's bytes; a missing one is not an error."""
        ...

    async def check_key(self, key: str) -> None:
        """Raise KeyConflict when `key` cannot be stored (before any byte is taken)."""
        ...

    # -- what a crash leaves behind (the reaper's orphan sweep) --

    def stored_before(self, moment: datetime) -> AsyncIterator[list[str]]:
        """Batches of the keys of stored versions (`<bucket>/<name>/<uuid>`) placed before
        `moment`: the candidates of the orphan sweep, which keeps those a row points to."""
        ...

    def unfinished_before(self, moment: datetime) -> AsyncIterator[list[tuple[str, str]]]:
        """Batches of (key, upload id) of the multipart uploads begun before `moment`
        and never completed (S3; the file backend has none)."""
        ...

    async def abort_unfinished(self, key: str, upload_id: str) -> None: ...


class BackendMissing(Exception):
    """The key has no bytes in the backend."""


class TooLarge(Exception):
    """The stream went past the size limit it was given."""


class KeyConflict(Exception):
    """The key's place is taken by other bytes (the file backend: an object name running
    through another object's stored version, `<name>/<version>/...`)."""
