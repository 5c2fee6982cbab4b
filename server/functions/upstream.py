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
                  body: bytes | AsyncIterator[bytes] | None, length: int | None) -> Answer:
    """Send the request and return the answer once its head is read; its body is read as
    `Answer.body` is iterated, and the connection closed when that ends (or is closed early).

    A body already whole (bytes) leaves with the head, in one write. One still arriving
    (`length` bytes, or chunked when the length is unknown) is sent by a task of its own
    while the answer is read: a function may answer, or stream the body back, before it has
    read all of it."""
    try:
        reader, writer = await asyncio.open_unix_connection(socket_path, limit=READ_BYTES)
    except OSError as exc:
        raise UpstreamError(f"cannot connect: {exc}") from None
    sender: asyncio.Task[None] | None = None
    try:
        host = next((value for name, value in headers if name.lower() == b"host"), b"localhost")
        head = [f"{method} {target} HTTP/1.1\r\n".encode("latin-1"), b"host: " + host + b"\r\nconnection: close\r\n"]
        head += [name + b": " + value + b"\r\n" for name, value in headers if name.lower() not in _OWN]
        if isinstance(body, bytes):
            head += [b"content-length: %d\r\n\r\n" % len(body), body]
        elif body is not None:
            head.append(b"content-length: %d\r\n\r\n" % length if length is not None
                        else b"transfer-encoding: chunked\r\n\r\n")
        else:
            head.append(b"\r\n")
        writer.write(b"".join(head))
        if body is not None and not isinstance(body, bytes):
            sender = asyncio.ensure_future(_send_body(writer, body, chunked=length is None))
        parsed = _Parsed()
        parser = httptools.HttpResponseParser(parsed)
        while not parsed.head_done:
            data = await _read(reader, sender)
            if not data:
                raise UpstreamError("the function's process closed the connection")
            parser.feed_data(data)
        if method == "HEAD":  # an answer to HEAD has no body, whatever its length says
            parsed.complete = True
        return Answer(parser.get_status_code(), parsed.headers, _body(parsed, parser, reader, writer, sender))
    except (OSError, httptools.HttpParserError) as exc:
        await _close(writer, sender)
        raise UpstreamError(str(exc) or type(exc).__name__) from None
    except BaseException:
        await _close(writer, sender)
        raise


async def _send_body(writer: asyncio.StreamWriter, body: AsyncIterator[bytes], chunked: bool) -> None:
    async for chunk in body:
        if chunk:
            writer.write(b"%x\r\n%s\r\n" % (len(chunk), chunk) if chunked else chunk)
            await writer.drain()
    if chunked:
        writer.write(b"0\r\n\r\n")
    await writer.drain()


async def _read(reader: asyncio.StreamReader, sender: asyncio.Task[None] | None) -> bytes:
    """The next bytes of the answer; the body's failure (the client left, too large) first."""
    if sender is None or sender.done():
        if sender is not None and not sender.cancelled() and sender.exception() is not None:
            raise sender.exception()  # type: ignore[misc]
        return await reader.read(READ_BYTES)
    read = asyncio.ensure_future(reader.read(READ_BYTES))
    await asyncio.wait((read, sender), return_when=asyncio.FIRST_COMPLETED)
    if read.done():
        return read.result()
    failure = None if sender.cancelled() else sender.exception()
    if failure is not None:
        read.cancel()
        raise failure
    return await read


async def _close(writer: asyncio.StreamWriter, sender: asyncio.Task[None] | None) -> None:
    writer.close()
    if sender is not None and not sender.done():
        sender.cancel()
        await asyncio.gather(sender, return_exceptions=True)


async def _body(parsed: _Parsed, parser: httptools.HttpResponseParser, reader: asyncio.StreamReader,
                writer: asyncio.StreamWriter, sender: asyncio.Task[None] | None) -> AsyncIterator[bytes]:
    try:
        while True:
            while parsed.chunks:
                yield parsed.chunks.pop(0)
            if parsed.complete:
                return
            data = await _read(reader, sender)
            if not data:  # the end of a body framed by the connection's close, else a broken answer
                if any(name.lower() in (b"content-length", b"transfer-encoding") for name, _ in parsed.headers):
                    raise UpstreamError("the function's process closed the connection mid-answer")
                return
            parser.feed_data(data)
    finally:
        await _close(writer, sender)
