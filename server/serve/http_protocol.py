"""uvicorn's httptools protocol with a bound on a request's head (request line + headers),
sending each response's head and body in one write, and /rest/v1 requests taken by the
REST lane (server.serve.rest_lane) instead of the ASGI app. A keep-alive connection keeps one
idle timer rather than one per request, and a lane request builds no ASGI scope.

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

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from server.serve import rest_lane

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
        """The transport itself, for a writer that sends whole responses (server.serve.rest_lane)."""
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
        self._head_bytes = 0  # bytes read of a head still incomplete
        self._head_size = 0  # the header lines' size, counted as they are parsed
        self._too_large = False
        self._rest = rest_lane.rest_service(self.app)  # None: every request through ASGI
        self._idle_since = 0.0  # loop time of the last response while idle; 0: a request is under way

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(CoalescingTransport(transport))  # type: ignore[arg-type]

    def data_received(self, data: bytes) -> None:
        # uvicorn's, with the head's bound: run for every read, so written out once here
        self._idle_since = 0.0  # uvicorn's _unset_keepalive_if_required
        was_in_head = self._in_head
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        if was_in_head and self._in_head and not self._too_large:  # the whole read was head, not over
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES and not self.transport.is_closing():
                self._refuse()

    def on_message_begin(self) -> None:
        # uvicorn builds the ASGI scope here; a REST lane request never needs one, so it is
        # built in on_headers_complete for the requests that go to the ASGI app.
        self.url = b""
        self.expect_100_continue = False
        self.headers = []
        self._in_head = True
        self._head_bytes = 0
        self._head_size = 0

    def on_header(self, name: bytes, value: bytes) -> None:  # uvicorn's, counting the head's size
        name = name.lower()
        if name == b"expect" and value.lower() == b"100-continue":
            self.expect_100_continue = True
        self.headers.append((name, value))
        self._head_size += len(name) + len(value) + 4

    def _build_scope(self) -> None:
        """uvicorn's scope of the request whose head was just read (its on_message_begin)."""
        url, headers, expect_100_continue = self.url, self.headers, self.expect_100_continue
        super().on_message_begin()
        self.url, self.headers, self.expect_100_continue = url, headers, expect_100_continue
        self.scope["headers"] = headers

    def on_headers_complete(self) -> None:
        if len(self.url) + self._head_size > MAX_HEAD_BYTES:
            self._too_large = True
            raise HeadTooLarge  # the parser stops; send_400_response answers 431 instead
        self._in_head = False
        self._head_bytes = 0
        if self._rest is not None and not self.parser.should_upgrade():
            request_target = rest_lane.target(self.url)
            if request_target is not None:
                self._start_rest_cycle(*request_target)
                return
        self._build_scope()
        super().on_headers_complete()

    def _start_rest_cycle(self, path: str, query: str) -> None:
        """uvicorn's on_headers_complete for a /rest/v1 request, its cycle a RestCycle."""
        assert self._rest is not None
        parser = self.parser
        method = parser.get_method().decode("ascii")
        headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in self.headers}
        existing_cycle = self.cycle
        self.cycle = cycle = rest_lane.RestCycle(
            self, self._rest, method, path, query, headers,
            parser.get_http_version() != "1.0" and parser.should_keep_alive(), self.expect_100_continue)
        if existing_cycle is None or existing_cycle.response_complete:
            cycle.start()
        else:  # pipelined: it waits for the response before it, as uvicorn's own cycles do
            self.flow.pause_reading()
            self.pipeline.appendleft((cycle, self.app))

    @property
    def raw_transport(self) -> Any:
        return cast(CoalescingTransport, self.transport).raw

    def _start_asgi_task(self, cycle: Any, app: Any) -> None:
        if isinstance(cycle, rest_lane.RestCycle):  # a pipelined lane request
            cycle.start()
        else:
            super()._start_asgi_task(cycle, app)

    # -- keep-alive: one timer per idle period, not one per request --------------------
    # uvicorn arms a timer after every response and cancels it when the next request's
    # bytes arrive. Here a response notes the time; the timer, armed once, closes the
    # connection when it has stayed idle for the whole timeout, else waits for the rest.

    def _unset_keepalive_if_required(self) -> None:
        self._idle_since = 0.0  # bytes of a request arrive (or the connection goes)

    def on_response_complete(self) -> None:
        self.server_state.total_requests += 1
        if self.transport.is_closing():
            return
        self.flow.resume_reading()
        if self.pipeline:
            cycle, app = self.pipeline.pop()
            self._start_asgi_task(cycle, app)
            return
        self._idle_since = self.loop.time()
        if self.timeout_keep_alive_task is None:  # armed once per idle period
            self.timeout_keep_alive_task = self.loop.call_later(self.timeout_keep_alive, self._keep_alive_check)

    def _keep_alive_check(self) -> None:
        self.timeout_keep_alive_task = None
        if self.transport.is_closing() or not self._idle_since:
            return  # closed, or busy: the next response arms the timer again
        left = self._idle_since + self.timeout_keep_alive - self.loop.time()
        if left <= 0:
            self.transport.close()
            return
        self.timeout_keep_alive_task = self.loop.call_later(left, self._keep_alive_check)

    def connection_lost(self, exc: Exception | None) -> None:
        super().connection_lost(exc)
        if self.timeout_keep_alive_task is not None:
            self.timeout_keep_alive_task.cancel()
            self.timeout_keep_alive_task = None

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
