"""A request body: read within a size bound (server.core.body); a parsed body re-encoded as JSON.

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

from server.core.body import declared_length, read_bounded, receive_chunks
from server.rest import errors


async def read_body(receive: Receive, headers: dict[str, str], limit: int) -> bytes:
    """The whole body, or 413 as soon as it is known to be larger than `limit` bytes."""
    chunks = receive_chunks(receive, lambda: errors.invalid_body("The request body ended early"))
    return await read_bounded(chunks, declared_length(headers), limit, lambda: errors.payload_too_large(limit))


def dump(value: Any) -> str:
    """JSON text of a parsed body; one nested deeper than the encoder allows is a 400."""
    try:
        return orjson.dumps(value).decode()
    except orjson.JSONEncodeError:
        raise errors.invalid_body("Empty or invalid json") from None
