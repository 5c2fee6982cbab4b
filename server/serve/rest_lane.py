"""The REST lane: /rest/v1 requests answered straight from the HTTP parser, without ASGI.

A REST read spends most of its time outside the REST code: measured on a single-row GET,
uvicorn's ASGI cycle (the scope, the proxy-headers middleware, the router, two send()
messages each checked header by header, the head held for its body) cost about as much CPU
as planning, running and answering the request. Here the connection's protocol hands a
/rest/v1 request to the REST service directly (`RestService.respond`, the same code the
ASGI app runs) and writes the answer, head and body, in one write.

`RestCycle` stands in for uvicorn's request/response cycle, so everything else about the
connection stays uvicorn's: keep-alive and its timeout, pipelined requests queued in order,
flow control, Expect: 100-continue and the body (the inherited `receive`), graceful shutdown.
Requests the lane does not take (absolute-form targets, upgrades) go through ASGI as before,
to the same service.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any, Protocol
from urllib.parse import unquote

from starlette.types import Receive
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, RequestResponseCycle

from server.rest import errors
from server.rest.headers import valid_headers
from server.rest.response import CORS_HEADERS, Answer, error_answer, response_headers
from server.rest.service import NO_BODY_METHODS

if TYPE_CHECKING:
    from server.rest.service import RestService


class LaneProtocol(Protocol):
    """What a RestCycle uses of its connection's protocol (server.serve.http_protocol)."""

    loop: asyncio.AbstractEventLoop
    tasks: set[asyncio.Task[None]]
    flow: Any
    server_state: Any

    @property
    def raw_transport(self) -> Any: ...

    def on_response_complete(self) -> None: ...

PREFIX = b"/rest/v1/"
JOIN_MAX_BYTES = 64 * 1024  # a body up to this size leaves in the same write as its head
log = logging.getLogger("supalite.rest")

_CORS_BLOCK = "".join(f"{name}: {value}\r\n" for name, value in CORS_HEADERS.items())
# An answer with any of these takes the slower way: its own CORS headers replace the defaults
# (a preflight's Access-Control-Allow-Origin, sent twice, is refused by browsers).
_CORS_NAMES = frozenset(CORS_HEADERS)


def rest_service(app: Any) -> RestService | None:
    """The REST service behind uvicorn's app (its middleware wraps ours), or None when the
    app is not this server's or SUPALITE_REST_LANE is off."""
    from server.serve.app import SupaliteApp

    for _ in range(8):  # uvicorn wraps the app in a few middlewares at most
        if isinstance(app, SupaliteApp):
            if not app.rest_lane:
                return None
            service: RestService = app.rest_app  # type: ignore[assignment]
            return service
        app = getattr(app, "app", None)
        if app is None:
            return None
    return None


def target(url: bytes) -> tuple[str, str] | None:
    """(path below /rest/v1, query string) of an origin-form request target under /rest/v1/,
    else None. The path is percent-decoded, as an ASGI server decodes scope["path"]."""
    if not url.startswith(PREFIX):
        return None
    if b"#" in url:
        url = url.partition(b"#")[0]
    raw_path, _, query = url.partition(b"?")
    path = raw_path[len(PREFIX) - 1:].decode("latin-1")
    if "%" in path:
        path = unquote(path)
    return path, query.decode("latin-1")


def sendable(out: Answer) -> Answer:
    """The answer, or a 500 when one of its headers is not valid HTTP: a header a database
    function set with a line break would split the response."""
    if valid_headers("".join(out.headers), "".join(out.headers.values())):
        return out
    log.error("rest: a response header is not valid HTTP: %r", out.headers)
    return error_answer(errors.internal_error())


def head(out: Answer, default_headers: list[tuple[bytes, bytes]], keep_alive: bool) -> bytes:
    """The response's status line and headers: the server's defaults (date, server), CORS,
    the answer's own (checked by `sendable`), Content-Length."""
    lines = [STATUS_LINE[out.status], _default_block(default_headers)]
    own = out.headers
    if _CORS_NAMES.isdisjoint(own):  # the usual answer: the CORS lines are made once
        text = _CORS_BLOCK + "".join(f"{name}: {value}\r\n" for name, value in own.items())
    else:
        text = "".join(f"{name}: {value}\r\n" for name, value in response_headers(own).items())
    lines.append(text.encode("latin-1", "replace"))
    lines.append(b"content-length: %d\r\n" % len(out.body))
    if not keep_alive:
        lines.append(b"connection: close\r\n")
    lines.append(b"\r\n")
    return b"".join(lines)


_defaults: tuple[list[tuple[bytes, bytes]] | None, bytes] = (None, b"")


def _default_block(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The server's default header lines, encoded once per list: uvicorn makes a new one
    each second (its date header), and every response in that second shares it."""
    global _defaults
    if _defaults[0] is not default_headers:
        _defaults = (default_headers, b"".join(name + b": " + value + b"\r\n" for name, value in default_headers))
    return _defaults[1]


class _NoBody:
    """The message event of a request whose body is never read (GET, HEAD, DELETE): the
    protocol sets it when the message ends or the client leaves, and nobody waits on it."""

    __slots__ = ()

    def set(self) -> None:
        pass


_NO_BODY = _NoBody()


class RestCycle(RequestResponseCycle):
    """One /rest/v1 request on a connection: its body through the inherited `receive`, its
    answer from `RestService.respond`, written whole. Built with only the state the protocol
    and `receive` use (uvicorn's own constructor sets up a whole ASGI cycle); the state a
    request seldom changes starts as these class defaults."""

    disconnected = False
    more_body = True
    response_started = False
    response_complete = False
    waiting_for_100_continue = False
    message_event: Any = _NO_BODY
    body: Any = b""
    task: asyncio.Task[None] | None = None

    def __init__(self, protocol: LaneProtocol, service: RestService, method: str, path: str, query: str,
                 headers: dict[str, str], keep_alive: bool, expect_100_continue: bool) -> None:
        self.protocol = protocol
        self.service = service
        self.method = method
        self.path = path
        self.query = query
        self.request_headers = headers
        self.keep_alive = keep_alive
        self.transport = protocol.raw_transport
        self.flow = protocol.flow
        if method not in NO_BODY_METHODS:
            self.message_event = asyncio.Event()
            self.body = bytearray()
            if expect_100_continue:
                self.waiting_for_100_continue = True

    def start(self) -> None:
        """Run the cycle as one of the server's tasks (uvicorn's _start_asgi_task, whose
        done-callback costs a loop turn per request: this task leaves the set itself)."""
        self.task = task = self.protocol.loop.create_task(self.run_asgi(None))
        self.protocol.tasks.add(task)

    async def run_asgi(self, app: Any) -> None:  # the name uvicorn's protocol starts a cycle by
        try:
            receive: Receive = self.receive  # type: ignore[assignment]  # uvicorn's narrower type
            out = sendable(await self.service.respond(self.method, self.path, self.query, self.request_headers,
                                                      receive))
            if self.flow.write_paused and not self.disconnected:
                await self.flow.drain()  # the client reads slower than it asks: wait for it
            if self.disconnected:
                return
            protocol = self.protocol
            data = head(out, protocol.server_state.default_headers, self.keep_alive)
            if len(out.body) <= JOIN_MAX_BYTES:
                self.transport.write(data + out.body)
            else:
                self.transport.write(data)
                self.transport.write(out.body)
            self.response_started = self.response_complete = True
            self.message_event.set()
            if not self.keep_alive:
                self.transport.close()
            protocol.on_response_complete()
        except Exception:
            log.exception("rest: could not answer %s /rest/v1%s", self.method, self.path)
            self.transport.close()  # nothing sensible can follow on this connection
        except BaseException:  # cancelled (the server stops): the answer will not come
            self.transport.close()
            raise
        finally:
            self.protocol.tasks.discard(self.task)
