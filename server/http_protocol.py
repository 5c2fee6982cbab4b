"""uvicorn's httptools protocol with a bound on a request's head (request line + headers),
sending each response's head and body in one write, and /rest/v1 requests taken by the
REST lane (server.rest_lane) instead of the ASGI app.

httptools itself accepts a header of any size, holding it whole in memory while it arrives,
so one client could send megabytes of header per connection. Here a head larger than
`MAX_HEAD_BYTES` is answered `431 Request Header Fields Too Large` and the connection
closed: counted while it arrives (a head still incomplete after that many bytes) and once
complete (a head that arrived in one read).

uvicorn writes a response's head, then its body: two send() calls, two segments on a
TCP_NODELAY socket, and the client woken twice. Measured on a cached REST read, those
writes were a third of the worker's CPU. The head is held until the body's first write
(or until the loop's next turn, for a response whose body comes later) and goes out with it.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server import rest_lane

# Generous next to nginx's 32 KiB default: an access token carries the user's metadata.
MAX_HEAD_BYTES = 64 * 1024

_BODY = b'{"message":"Request header fields too large"}'
_RESPONSE_431 = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: application/json\r\n"
    b"content-length: " + str(len(_BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _BODY
)


class HeadTooLarge(Exception):
    pass


# A body chunk up to this size is sent in the same write as the head (joined: one copy);
# a larger one follows it in a write of its own.
COALESCE_MAX_BYTES = 64 * 1024
_RESPONSE_HEAD = b"HTTP/1.1 "


class CoalescingTransport:
    """The connection's transport, holding a response head back for the body's first write.

    uvicorn writes a head as one bytes object starting with the status line; a body that
    happened to start with those bytes would only wait for the loop's next turn."""

    __slots__ = ("_held", "_loop", "_transport")

    def __init__(self, transport: Any) -> None:  # asyncio's or uvloop's
        self._transport = transport
        self._loop = asyncio.get_running_loop()
        self._held: bytes | None = None

    def write(self, data: bytes | bytearray | memoryview) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if len(data) <= COALESCE_MAX_BYTES:
                self._transport.write(held + bytes(data))
                return
            self._transport.write(held)
        elif data[:9] == _RESPONSE_HEAD:
            self._held = bytes(data)
            self._loop.call_soon(self._flush)  # a body that does not follow at once
            return
        self._transport.write(data)

    def _flush(self) -> None:
        held = self._held
        if held is not None:
            self._held = None
            if not self._transport.is_closing():
                self._transport.write(held)

    def close(self) -> None:
        self._flush()
        self._transport.close()

    @property
    def raw(self) -> Any:
        """The transport itself, for a writer that sends whole responses (server.rest_lane)."""
        return self._transport

    def is_closing(self) -> bool:  # asked on every read: spared __getattr__
        result: bool = self._transport.is_closing()
        return result

    def __getattr__(self, name: str) -> Any:  # everything else is the transport's
        return getattr(self._transport, name)


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True  # between a message's start and its headers' end
        self._head_bytes = 0
        self._too_large = False
        self._rest = rest_lane.rest_service(self.app)  # None: every request through ASGI

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(CoalescingTransport(transport))  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        was_in_head = self._in_head
        super().data_received(data)
        if self._too_large or self.transport.is_closing():
            return
        if was_in_head and self._in_head:  # the whole read was head, and it is not over
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > MAX_HEAD_BYTES:
            self._too_large = True
            raise HeadTooLarge  # the parser stops; send_400_response answers 431 instead
        self._in_head = False
        self._head_bytes = 0
        if self._rest is not None and not self.parser.should_upgrade():
            request_target = rest_lane.target(self.url)
            if request_target is not None:
                self._start_rest_cycle(*request_target)
                return
        super().on_headers_complete()

    def _start_rest_cycle(self, path: str, query: str) -> None:
        """uvicorn's on_headers_complete for a /rest/v1 request, its cycle a RestCycle."""
        assert self._rest is not None
        http_version = self.parser.get_http_version()
        method = self.parser.get_method().decode("ascii")
        self.scope["method"] = method
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in self.headers}
        existing_cycle = self.cycle
        self.cycle = rest_lane.RestCycle(
            self._rest, method, path, query, headers,
            scope=self.scope, transport=cast(CoalescingTransport, self.transport).raw, flow=self.flow, logger=self.logger,
            access_logger=self.access_logger, access_log=self.access_log,
            default_headers=self.server_state.default_headers, message_event=asyncio.Event(),
            expect_100_continue=self.expect_100_continue,
            keep_alive=http_version != "1.0" and self.parser.should_keep_alive(),
            on_response=self.on_response_complete,
        )
        if existing_cycle is None or existing_cycle.response_complete:
            self._start_asgi_task(self.cycle, self.app)
        else:  # pipelined: it waits for the response before it, as uvicorn's own cycles do
            self.flow.pause_reading()
            self.pipeline.appendleft((self.cycle, self.app))

    def send_400_response(self, msg: str) -> None:
        if self._too_large:
            self._refuse()
            return
        super().send_400_response(msg)

    def _refuse(self) -> None:
        self._too_large = True
        self.logger.warning("request head over %d bytes refused (431)", MAX_HEAD_BYTES)
        self.transport.write(_RESPONSE_431)
        self.transport.close()
