"""A request body read within a size bound, for every service.

A body over the bound is refused at once when Content-Length says so, else as soon as the
bytes read pass the bound, never holding more than the bound. Each service hands in its own
error (PostgREST's, GoTrue's, Storage's shape), so the bound is one piece of code and the
answers stay each service's own.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Mapping

from starlette.types import Receive


def declared_length(headers: Mapping[str, str]) -> int | None:
    """Content-Length as sent (already checked well-formed by the HTTP parser), None when
    absent (chunked). More digits than any bound: too large, without converting them."""
    value = headers.get("content-length", "").strip()
    if not (value.isascii() and value.isdigit()):
        return None
    return int(value) if len(value) <= 18 else 10**18


async def read_bounded(chunks: AsyncIterable[bytes], length: int | None, limit: int,
                       too_large: Callable[[], Exception]) -> bytes:
    """The whole body from its chunks, or `too_large()` raised as soon as it is known to be
    larger than `limit` bytes (`length`: its declared_length)."""
    if length is not None and length > limit:
        raise too_large()
    body = bytearray()
    async for chunk in chunks:
        body += chunk
        if len(body) > limit:
            raise too_large()
    return bytes(body)


async def receive_chunks(receive: Receive, ended_early: Callable[[], Exception]) -> AsyncIterator[bytes]:
    """The body's chunks as ASGI delivers them (for code below Starlette's Request);
    `ended_early()` is raised if the client leaves before the last one."""
    more = True
    while more:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ended_early()
        yield message.get("body", b"")
        more = message.get("more_body", False)
