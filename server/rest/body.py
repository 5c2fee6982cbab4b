"""A request body: read within a size bound; a parsed body re-encoded as JSON.

PostgREST itself has no body bound (its maintainers leave it to the proxy's
`client_max_body_size`); this server faces the internet directly, so a body over
`SUPALITE_REST_MAX_BODY_BYTES` is refused with 413: at once when Content-Length says so,
else as soon as the bytes read pass the bound, never holding more than the bound. Callers
verify the token first, so a request that will be refused anyway never has its body read.
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.types import Receive

from server.rest import errors


def declared_length(headers: dict[str, str]) -> int | None:
    """Content-Length as sent (already checked well-formed by the HTTP parser), None when
    absent (chunked). More digits than any bound: too large, without converting them."""
    value = headers.get("content-length", "").strip()
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value) if len(value) <= 18 else 10**18


async def read_body(receive: Receive, headers: dict[str, str], limit: int) -> bytes:
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


def dump(value: Any) -> str:
    """JSON text of a parsed body; one nested deeper than the encoder allows is a 400."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        raise errors.invalid_body("Empty or invalid json") from None
