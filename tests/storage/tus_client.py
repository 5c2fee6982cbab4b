"""A small TUS 1.0.0 client over httpx for the resumable-upload tests: each call is one
protocol request, so tests can send exactly the headers (good or bad) they mean to."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from typing import Any

import httpx

ENDPOINT = "/storage/v1/upload/resumable"
TUS = {"Tus-Resumable": "1.0.0"}
OFFSET_STREAM = {"Content-Type": "application/offset+octet-stream"}


def encode_metadata(metadata: dict[str, str | None]) -> str:
    return ",".join(key if value is None else f"{key} {base64.b64encode(value.encode()).decode()}"
                    for key, value in metadata.items())


def create(client: httpx.Client, auth: dict[str, str], length: int, metadata: dict[str, str | None],
           *, endpoint: str = ENDPOINT, body: bytes | None = None, **headers: str) -> httpx.Response:
    h = {**auth, **TUS, "Upload-Length": str(length), "Upload-Metadata": encode_metadata(metadata), **headers}
    if body is not None:
        h.update(OFFSET_STREAM)
    return client.post(endpoint, headers=h, content=body)


def patch(client: httpx.Client, auth: dict[str, str], location: str, offset: int, data: Any,
          **headers: str) -> httpx.Response:
    return client.patch(location, headers={**auth, **TUS, **OFFSET_STREAM, "Upload-Offset": str(offset), **headers},
                        content=data)


def head(client: httpx.Client, auth: dict[str, str], location: str) -> httpx.Response:
    return client.head(location, headers={**auth, **TUS})


def encode_id(upload_id: str) -> str:
    return base64.urlsafe_b64encode(upload_id.encode()).decode().rstrip("=")


def upload_id(location: str) -> str:
    """The "<bucket>/<name>/<version>" an upload URL names (base64url, unpadded)."""
    token = location.rsplit("/", 1)[-1]
    return base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()


def pattern(start: int, stop: int, block: int = 1 << 20) -> Iterator[bytes]:
    """Bytes start..stop of a deterministic stream that is not all one byte: block i is
    the sha256 chain of i repeated, so any offset can be regenerated without memory."""
    position = start
    while position < stop:
        index, within = divmod(position, block)
        seed = hashlib.sha256(index.to_bytes(8, "big")).digest()
        data = (seed * (block // len(seed) + 1))[:block]
        piece = data[within:within + min(block - within, stop - position)]
        yield piece
        position += len(piece)
