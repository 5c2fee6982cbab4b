"""HTTP/1.1 to a function's Deno process over its Unix socket: one connection per request,
the request body passed on as it arrives and the answer read as it comes.

A connection per request costs a Unix-socket connect (tens of microseconds) and never meets
a kept-alive connection the other side closed meanwhile. httpx did the same job at about a
millisecond of CPU per request, which capped a function near 1,000 calls a second.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import httptools

READ_BYTES = 64 * 1024
MAX_HEAD_BYTES = 64 * 1024  # of the function's answer
# Request headers the connection sets itself.
_OWN = frozenset({b"host", b"connection", b"content-length", b"transfer-encoding", b"keep-alive", b"te",
                  b"trailer", b"upgrade", b"proxy-connection", b"expect"})


class UpstreamError(Exception):
    """The function's process closed or broke the connection before its answer's head."""


@dataclass
class Answer:
    status: int
    headers: list[tuple[bytes, bytes]]
    body: AsyncIterator[bytes]


@dataclass
class _Parsed:
    headers: list[tuple[bytes, bytes]] = field(default_factory=list)
    head_done: bool = False
    chunks: list[bytes] = field(default_factory=list)
    complete: bool = False
    head_bytes: int = 0

    def on_header(self, name: bytes, value: bytes) -> None:
        self.head_bytes += len(name) + len(value)
        if self.head_bytes > MAX_HEAD_BYTES:
            raise UpstreamError("the function's answer has a head over 64 KiB")
        self.headers.append((name, value))

    def on_headers_complete(self) -> None:
        self.head_done = True

    def on_body(self, body: bytes) -> None:
        self.chunks.append(bytes(body))

    def on_message_complete(self) -> None:
        self.complete = True


async def request(socket_path: str, method: str, target: str, headers: list[tuple[bytes, bytes]],
                  body: AsyncIterator[bytes] | None, length: int | None) -> Answer:
    """Send the request (a body of `length` bytes, or chunked when the length is unknown) and
    return the answer once its head is read; its body is read as `Answer.body` is iterated,
    and the connection closed when that ends (or is closed early)."""
    try:
        reader, writer = await asyncio.open_unix_connection(socket_path, limit=READ_BYTES)
    except OSError as exc:
        raise UpstreamError(f"cannot connect: {exc}") from None
    try:
        head = [f"{method} {target} HTTP/1.1\r\n".encode("latin-1"), b"host: localhost\r\nconnection: close\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in headers if name.lower() not in _OWN]
        chunked = body is not None and length is None
        if body is not None:
            head.append(b"content-length: %d\r\n" % length if length is not None else b"transfer-encoding: chunked\r\n")
        head.append(b"\r\n")
        writer.write(b"".join(head))
        if body is not None:
            async for chunk in body:
                writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
                await writer.drain()
            if chunked:
                writer.write(b"0\r\n\r\n")
        await writer.drain()
        parsed = _Parsed()
        parser = httptools.HttpResponseParser(parsed)
        while not parsed.head_done:
            data = await reader.read(READ_BYTES)
            if not data:
                raise UpstreamError("the function's process closed the connection")
            parser.feed_data(data)
        return Answer(parser.get_status_code(), parsed.headers, _body(parsed, parser, reader, writer))
    except (OSError, httptools.HttpParserError) as exc:
        writer.close()
        raise UpstreamError(str(exc) or type(exc).__name__) from None
    except BaseException:
        writer.close()
        raise


async def _body(parsed: _Parsed, parser: httptools.HttpResponseParser, reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter) -> AsyncIterator[bytes]:
    try:
        while True:
            while parsed.chunks:
                yield parsed.chunks.pop(0)
            if parsed.complete:
                return
            data = await reader.read(READ_BYTES)
            if not data:  # the end of a body framed by the connection's close, else a broken answer
                if any(name.lower() in (b"content-length", b"transfer-encoding") for name, _ in parsed.headers):
                    raise UpstreamError("the function's process closed the connection mid-answer")
                return
            parser.feed_data(data)
    finally:
        writer.close()
