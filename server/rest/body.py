"""A request body: read within a size bound, parsed off the event loop when large.

PostgREST itself has no body bound (its maintainers leave it to the proxy's
`client_max_body_size`); this server faces the internet directly, so a body over
`SUPALITE_REST_MAX_BODY_BYTES` is refused with 413: at once when Content-Length says so,
else as soon as the bytes read pass the bound, never holding more than the bound. Callers
verify the token first, so a request that will be refused anyway never has its body read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Hashable
from typing import Any

import orjson

from server.rest import errors
from server.rest.caches import body_shape
from server.rest.request import parse_csv_body, parse_form_body, parse_json_body

# Bodies up to this size parse inline (the usual few-row write stays on the fast path);
# larger ones in a worker thread, so that a 10 MB CSV does not stall every other request.
INLINE_PARSE_BYTES = 64 * 1024

JSON_TYPES = ("application/json", "", "application/vnd.pgrst.object+json", "application/vnd.pgrst.array+json")


def declared_length(headers: dict[str, str]) -> int | None:
    """Content-Length as sent (already checked well-formed by the HTTP parser), None when
    absent (chunked). More digits than any bound: too large, without converting them."""
    value = headers.get("content-length", "").strip()
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value) if len(value) <= 18 else 10**18


async def read_body(receive: Callable, headers: dict[str, str], limit: int) -> bytes:
    """The whole body, or 413 as soon as it is known to be larger than `limit` bytes."""
    length = declared_length(headers)
    if length is not None and length > limit:
        raise errors.payload_too_large(limit)
    body = bytearray()
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":  # the client left: nothing to run
            raise errors.invalid_body("The request body ended early")
        body += message.get("body", b"")
        if len(body) > limit:
            raise errors.payload_too_large(limit)
        more = message.get("more_body", False)
    return bytes(body)


def media_type(headers: dict[str, str]) -> str:
    return headers.get("content-type", "application/json").split(";")[0].strip().lower()


def parse_payload(ctype: str, body: bytes) -> Any:
    """The body as Python values, by Content-Type (PostgREST's JSON, CSV and form bodies)."""
    if ctype == "text/csv":
        return parse_csv_body(body)
    if ctype == "application/x-www-form-urlencoded":
        return parse_form_body(body)
    if ctype in JSON_TYPES:
        return parse_json_body(body)
    raise errors.media_type_error([ctype])


async def parse(headers: dict[str, str], body: bytes) -> tuple[Any, Hashable | None]:
    """The parsed body and its shape (caches.body_shape), both computed off the loop when large."""
    ctype = media_type(headers)
    if len(body) <= INLINE_PARSE_BYTES:
        return _parse_with_shape(ctype, body)
    return await asyncio.to_thread(_parse_with_shape, ctype, body)


def _parse_with_shape(ctype: str, body: bytes) -> tuple[Any, Hashable | None]:
    value = parse_payload(ctype, body)
    return value, body_shape(value)


def dump(value: Any) -> str:
    """JSON text of a parsed body; one nested deeper than the encoder allows is a 400."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        raise errors.invalid_body("Empty or invalid json") from None
