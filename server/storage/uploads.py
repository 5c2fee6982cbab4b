"""An upload's body as a stream: a raw body, or the first file of a multipart form, parsed
incrementally so no part of a large file is ever held whole (or spooled to disk).

What comes before the file's bytes (form fields, part headers) is bounded like
storage-api's multipart limits: at most MAX_FIELDS fields of MAX_FIELD_BYTES each, part
headers of MAX_HEADER_BYTES, so a form can never make the server hold more than a
little memory before the file starts.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections import deque
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import orjson
from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

from server.core.body import declared_length
from server.storage import content_types, errors
from server.storage.content_types import MediaType

MAX_FIELD_BYTES = 64 * 1024
MAX_FIELDS = 10
MAX_HEADER_BYTES = 8 * 1024
MAX_PART_HEADERS = 32
MAX_CACHE_CONTROL = 256
# What a form may add around its file: the bound on fields and part headers above.
MAX_FORM_OVERHEAD = MAX_FIELDS * (MAX_FIELD_BYTES + MAX_PART_HEADERS * MAX_HEADER_BYTES)
DEFAULT_CACHE_CONTROL = "no-cache"
_CACHE_CONTROL = re.compile(r"[\x20-\x7e]*")  # printable ASCII: it goes back out as a header


@dataclass
class UploadBody:
    media_type: MediaType
    cache_control: str
    user_metadata: dict[str, Any] | None
    chunks: AsyncIterator[bytes]

    @property
    def content_type(self) -> str:
        return str(self.media_type)


def is_multipart(request: Request) -> bool:
    mime, _ = parse_options_header(request.headers.get("content-type", ""))
    return mime == b"multipart/form-data"


def declared_file_size(request: Request) -> int | None:
    """A lower bound of the file's size from Content-Length (None when chunked), known
    before any byte is read: a multipart body may carry MAX_FORM_OVERHEAD besides it."""
    length = declared_length(request.headers)
    if length is None or not is_multipart(request):
        return length
    return max(0, length - MAX_FORM_OVERHEAD)


def _cache_control(value: str | None, seconds: bool) -> str:
    if not value:
        return DEFAULT_CACHE_CONTROL
    if len(value) > MAX_CACHE_CONTROL or not _CACHE_CONTROL.fullmatch(value):
        raise errors.invalid_parameter("cacheControl", "Invalid cacheControl")
    return f"max-age={value}" if seconds and value.isdigit() else value


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
        if not boundary or len(boundary) > 200:
            raise errors.invalid_request("multipart body without a valid boundary")
        return await _MultipartReader(request, boundary).open()
    return UploadBody(
        media_type=content_types.require(content_type),
        cache_control=_cache_control(request.headers.get("cache-control"), seconds=False),
        user_metadata=_header_metadata(request.headers.get("x-metadata")),
        chunks=request.stream(),
    )


class _MultipartReader:
    """Pushes the request stream through python-multipart's parser and turns its callbacks
    into events: fields before the file are collected, the file's data is yielded."""

    def __init__(self, request: Request, boundary: bytes) -> None:
        self.source = request.stream().__aiter__()
        self.events: deque[tuple[str, Any]] = deque()
        self.exhausted = False
        self.header_field = bytearray()
        self.header_value = bytearray()
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
        self._check_header()

    def _header_value(self, data: bytes, start: int, end: int) -> None:
        self.header_value += data[start:end]
        self._check_header()

    def _check_header(self) -> None:
        if len(self.header_field) + len(self.header_value) > MAX_HEADER_BYTES:
            raise errors.invalid_request("multipart part header too large")

    def _header_end(self) -> None:
        name = self.header_field.decode("latin-1").lower()
        self.events.append(("header", (name, self.header_value.decode(errors="replace"))))
        self.header_field, self.header_value = bytearray(), bytearray()

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
            except errors.StorageError:
                raise
            except Exception:
                raise errors.invalid_request("malformed multipart body") from None
        return self.events.popleft()

    async def _part_headers(self) -> dict[str, str] | None:
        """The next part's headers; None at the end of the body."""
        headers: dict[str, str] = {}
        event = await self._event()
        while event is not None and event[0] != "headers_done":
            if event[0] == "header":
                if len(headers) >= MAX_PART_HEADERS:
                    raise errors.invalid_request("multipart part with too many headers")
                headers[event[1][0]] = event[1][1]
            event = await self._event()
        return None if event is None else headers

    async def open(self) -> UploadBody:
        fields: dict[str, str] = {}
        while True:
            headers = await self._part_headers()
            if headers is None:
                raise errors.StorageError("InvalidRequest", 400, "No content provided")
            _, disposition = parse_options_header(headers.get("content-disposition", ""))
            if b"filename" in disposition:
                break
            if len(fields) >= MAX_FIELDS:
                raise errors.invalid_request(f"multipart body with more than {MAX_FIELDS} fields")
            name = disposition.get(b"name", b"").decode(errors="replace")
            value = bytearray()
            event = await self._event()
            while event is not None and event[0] == "data":
                value += event[1]
                if len(value) > MAX_FIELD_BYTES:
                    raise errors.invalid_request("form field too large")
                event = await self._event()
            fields[name] = value.decode(errors="replace")
        metadata = fields.get("metadata") or fields.get("userMetadata")
        # A `contentType` field wins over the part's own type, as in storage-api.
        media_type = content_types.require(fields.get("contentType") or headers.get("content-type"))
        return UploadBody(
            media_type=media_type,
            cache_control=_cache_control(fields.get("cacheControl"), seconds=True),
            user_metadata=_json_object(metadata, "metadata") if metadata else None,
            chunks=self._file_data(),
        )

    async def _file_data(self) -> AsyncIterator[bytes]:
        while True:
            event = await self._event()
            if event is None or event[0] == "end":
                return
            if event[0] == "data" and event[1]:
                yield event[1]
