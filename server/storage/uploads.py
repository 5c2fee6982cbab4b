"""An upload's body as a stream: a raw body, or the first file of a multipart form, parsed
incrementally so no part of a large file is ever held whole (or spooled to disk)."""

from __future__ import annotations

import base64
import binascii
from collections import deque
from dataclasses import dataclass
from typing import Any, AsyncIterator

import orjson
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from server.storage import errors

MAX_FIELD_BYTES = 64 * 1024
DEFAULT_CACHE_CONTROL = "no-cache"


@dataclass
class UploadBody:
    content_type: str
    cache_control: str
    user_metadata: dict[str, Any] | None
    chunks: AsyncIterator[bytes]
    declared_length: int | None = None


def _cache_control(seconds: str | None) -> str:
    if not seconds:
        return DEFAULT_CACHE_CONTROL
    return f"max-age={seconds}" if seconds.isdigit() else seconds


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise errors.invalid_parameter(what, f"Invalid {what}: not JSON") from None
    if not isinstance(value, dict):
        raise errors.invalid_parameter(what, f"Invalid {what}: not a JSON object")
    return value


def _header_metadata(value: str | None) -> dict[str, Any] | None:
    if not value:
        return None
    try:
        text = base64.b64decode(value, validate=False).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise errors.invalid_parameter("x-metadata", "Invalid x-metadata: not base64 JSON") from None
    return _json_object(text, "metadata")


async def read_upload(request: Request) -> UploadBody:
    content_type = request.headers.get("content-type", "")
    mime, params = parse_options_header(content_type)
    if mime == b"multipart/form-data":
        boundary = params.get(b"boundary")
        if not boundary:
            raise errors.invalid_request("multipart body without a boundary")
        return await _MultipartReader(request, boundary).open()
    length = request.headers.get("content-length")
    return UploadBody(
        content_type=content_type or "application/octet-stream",
        cache_control=request.headers.get("cache-control") or DEFAULT_CACHE_CONTROL,
        user_metadata=_header_metadata(request.headers.get("x-metadata")),
        chunks=request.stream(),
        declared_length=int(length) if length and length.isdigit() else None,
    )


class _MultipartReader:
    """Pushes the request stream through python-multipart's parser and turns its callbacks
    into events: fields before the file are collected, the file's data is yielded."""

    def __init__(self, request: Request, boundary: bytes) -> None:
        self.source = request.stream().__aiter__()
        self.events: deque[tuple[str, Any]] = deque()
        self.exhausted = False
        self.header_field = b""
        self.header_value = b""
        self.parser = MultipartParser(boundary, {
            "on_part_begin": lambda: self.events.append(("begin", None)),
            "on_header_field": self._header_field,
            "on_header_value": self._header_value,
            "on_header_end": self._header_end,
            "on_headers_finished": lambda: self.events.append(("headers_done", None)),
            "on_part_data": lambda data, start, end: self.events.append(("data", data[start:end])),
            "on_part_end": lambda: self.events.append(("end", None)),
        })

    def _header_field(self, data: bytes, start: int, end: int) -> None:
        self.header_field += data[start:end]

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]

    def _header_end(self) -> None:
        self.events.append(("header", (self.header_field.decode("latin-1").lower(), self.header_value.decode())))
        self.header_field = self.header_value = b""

    async def _event(self) -> tuple[str, Any] | None:
        while not self.events:
            if self.exhausted:
                return None
            try:
                chunk = await self.source.__anext__()
            except StopAsyncIteration:
                self.exhausted = True
                self.parser.finalize()
                continue
            try:
                self.parser.write(chunk)
            except Exception:
                raise errors.invalid_request("malformed multipart body") from None
        return self.events.popleft()

    async def open(self) -> UploadBody:
        fields: dict[str, str] = {}
        while True:
            headers: dict[str, str] = {}
            event = await self._event()
            while event is not None and event[0] != "headers_done":
                if event[0] == "header":
                    headers[event[1][0]] = event[1][1]
                event = await self._event()
            if event is None:
                raise errors.StorageError("InvalidRequest", 400, "No content provided")
            _, disposition = parse_options_header(headers.get("content-disposition", ""))
            if b"filename" in disposition:
                break
            name = disposition.get(b"name", b"").decode()
            value = bytearray()
            event = await self._event()
            while event is not None and event[0] == "data":
                value += event[1]
                if len(value) > MAX_FIELD_BYTES:
                    raise errors.invalid_request("form field too large")
                event = await self._event()
            fields[name] = value.decode(errors="replace")
        metadata = _json_object(fields["metadata"], "metadata") if fields.get("metadata") else None
        return UploadBody(
            content_type=headers.get("content-type") or "application/octet-stream",
            cache_control=_cache_control(fields.get("cacheControl")),
            user_metadata=metadata,
            chunks=self._file_data(),
        )

    async def _file_data(self) -> AsyncIterator[bytes]:
        while True:
            event = await self._event()
            if event is None or event[0] == "end":
                return
            if event[0] == "data" and event[1]:
                yield event[1]
