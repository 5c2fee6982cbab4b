"""/functions/v1/<name>: a project's Edge Functions, as Supabase's edge runtime serves them.

    name -> catalog.find (folder, config.toml keys) -> the JWT, unless verify_jwt = false
    -> the function's worker (server.functions.workers) -> the request passed through

The function sees the path from its name on (`/<name>/...`, as behind Supabase's gateway),
with the method, headers, query and body; its answer streams back as it comes (server-sent
events included). The edge runtime's errors, with its statuses and bodies: 404 "Function not
found", 401 `{"msg": ...}` for a missing or invalid JWT, 503 BOOT_ERROR when the function
does not start, 546 WORKER_LIMIT when it outlives the wall-clock limit or its memory, 500
WORKER_ERROR when it throws.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING
from urllib.parse import quote

import orjson
from starlette.types import Receive, Scope, Send

from server.core.body import declared_length
from server.core.caller import verified_token
from server.core.config import Settings
from server.core.jwt import JwtError
from server.functions import catalog, upstream
from server.functions.workers import BootError, FunctionWorker, Process, WorkerPool

if TYPE_CHECKING:
    from server.core.context import AppContext

log = logging.getLogger("supalite.functions")

BOOT_ERROR = (503, "BOOT_ERROR", "Worker failed to boot (please check logs)")
WORKER_ERROR = (500, "WORKER_ERROR", "Function exited due to an error (please check logs)")
WORKER_LIMIT = (546, "WORKER_LIMIT", "Worker failed to respond due to a resource limit (please check logs)")
# Of a function's answer, the hop-by-hop headers (RFC 9110 7.6.1) and those the server sets
# itself (a second Date): not passed on. Content-Length is, when the function gives one.
_ANSWER_HOP = frozenset({b"connection", b"keep-alive", b"proxy-connection", b"transfer-encoding", b"te",
                         b"trailer", b"upgrade", b"date", b"server"})


class FunctionsService:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.pool = WorkerPool(ctx.settings)
        ctx.on_shutdown.append(self.pool.stop)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"][len(scope.get("root_path", "")):]
        name = path.lstrip("/").split("/", 1)[0]
        spec = catalog.find(self.settings, name)
        if spec is None:
            await _answer(send, 404, b"Function not found", b"text/plain")
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if spec.verify_jwt and scope["method"] != "OPTIONS":
            refusal = self._refusal(headers.get("authorization"))
            if refusal is not None:
                await _answer(send, 401, orjson.dumps({"msg": refusal}), b"application/json")
                return
        await self._invoke(self.pool.worker(spec), scope, receive, send, path, headers)

    def _refusal(self, authorization: str | None) -> str | None:
        """Why the edge runtime would refuse this Authorization header, or None."""
        if not authorization:
            return "Error: Missing authorization header"
        bearer, _, token = authorization.partition(" ")
        if bearer != "Bearer":
            return "Error: Auth header is not 'Bearer {token}'"
        try:
            verified_token(self.ctx.keys, token)
        except JwtError:
            return "Invalid JWT"
        return None

    async def _invoke(self, worker: FunctionWorker, scope: Scope, receive: Receive, send: Send, path: str,
                      headers: dict[str, str]) -> None:
        try:
            process = await worker.ready()
        except BootError as exc:
            log.error("%s", exc)
            await _error(send, BOOT_ERROR)
            return
        await Invocation(worker, process, send).run(scope, receive, path, headers, self.settings)


class Invocation:
    """One request passed to a function's process and its answer streamed back, within the
    wall-clock limit, given up as soon as the client leaves."""

    def __init__(self, worker: FunctionWorker, process: Process, send: Send) -> None:
        self.worker = worker
        self.process = process  # the one serving this call
        self.send = send
        self.started = False  # the answer's head went out: no error answer can follow

    async def run(self, scope: Scope, receive: Receive, path: str, headers: dict[str, str],
                  settings: Settings) -> None:
        deadline = asyncio.get_running_loop().time() + settings.functions_wall_clock
        body = _Body(receive, settings.file_size_limit)
        query = scope.get("query_string", b"")
        raw_path: bytes = scope.get("raw_path") or b""
        prefix = scope.get("root_path", "").encode("latin-1")
        # the path as the client sent it, from the function's name on
        target = (raw_path[len(prefix):].decode("latin-1") if prefix and raw_path.startswith(prefix)
                  else quote(path)) + ("?" + query.decode("latin-1") if query else "")
        length = declared_length(headers)  # None: chunked, or no body at all
        has_body = bool(length) or "transfer-encoding" in headers
        if length is not None and length > settings.file_size_limit:  # known too large: refused unread
            await _answer(self.send, 413, b'{"msg":"Request body too large"}', b"application/json")
            return
        if not has_body:
            body.read.set()  # nothing to read: from now on, any message is the client leaving
        exchange = asyncio.ensure_future(self._exchange(
            scope["method"], target, scope["headers"], body if has_body else None, length))
        client_gone = asyncio.ensure_future(body.disconnected())
        try:
            async with asyncio.timeout_at(deadline):
                await asyncio.wait((exchange, client_gone), return_when=asyncio.FIRST_COMPLETED)
        except TimeoutError:
            await _cancel(exchange, client_gone)  # its connection closed: the function's request aborted
            # The other calls it serves are left alone, unless it no longer answers at all (a
            # function stuck in a loop): then it is stopped before this call is answered, so
            # the next call starts it again rather than waiting on it.
            healthy = await self.worker.healthy(self.process)
            log.warning("function %s ran past its wall-clock limit (%ss)%s", self.worker.spec.name,
                        settings.functions_wall_clock, "" if healthy else ": it no longer answers, stopped")
            if not healthy:
                await self.worker.stop(self.process)
            if not self.started:
                await _error(self.send, WORKER_LIMIT)
            return
        await _cancel(client_gone)
        if not exchange.done():  # the client left: the function's request is cancelled with it
            await _cancel(exchange)
            return
        failure = exchange.exception()
        if failure is None or self.started or isinstance(failure, _ClientGone):
            return
        if isinstance(failure, _BodyTooLarge):
            await _answer(self.send, 413, b'{"msg":"Request body too large"}', b"application/json")
        elif isinstance(failure, upstream.UpstreamError):
            await asyncio.sleep(0.05)  # a process that died closed its socket first
            died = not self.process.alive
            log.error("function %s: %s%s", self.worker.spec.name, failure,
                      " (its process ended: " + " | ".join(list(self.process.output)[-3:]) + ")" if died else "")
            await _error(self.send, WORKER_LIMIT if died else WORKER_ERROR)
        else:
            raise failure

    async def _exchange(self, method: str, target: str, headers: list[tuple[bytes, bytes]],
                        body: _Body | None, length: int | None) -> None:
        content: bytes | AsyncIterator[bytes] | None = None
        if body is not None:
            content = await body.whole()
            if content is None:
                content = body.chunks()
            elif length is None:
                length = len(content)  # a chunked body that came whole: sent with its length
        answer = await upstream.request(self.process.socket_path, method, target, headers, content, length)
        try:
            await self.send({"type": "http.response.start", "status": answer.status,
                             "headers": [(k, v) for k, v in answer.headers if k.lower() not in _ANSWER_HOP]})
            self.started = True
            async for chunk in answer.body:
                await self.send({"type": "http.response.body", "body": chunk, "more_body": True})
            await self.send({"type": "http.response.body", "body": b""})
        finally:
            await answer.body.aclose()  # type: ignore[attr-defined]


class _BodyTooLarge(Exception):
    pass


class _ClientGone(Exception):
    pass


class _Body:
    """The request body, passed on as it arrives (refused past `limit` bytes); once it is
    all read, `disconnected` returns when the client leaves."""

    def __init__(self, receive: Receive, limit: int) -> None:
        self.receive = receive
        self.limit = limit
        self.read = asyncio.Event()
        self._size = 0
        self._first: bytes | None = None  # a first message's body, when more follow

    async def whole(self) -> bytes | None:
        """The body when it came in one message (a usual small body: sent with the request's
        head in one write), else None, and `chunks` passes it on as it comes."""
        chunk, more = await self._next()
        if not more:
            self.read.set()
            return chunk
        self._first = chunk
        return None

    async def chunks(self) -> AsyncIterator[bytes]:
        try:
            if self._first:
                yield self._first
            more = True
            while more:
                chunk, more = await self._next()
                if chunk:
                    yield chunk
        finally:
            self.read.set()

    async def _next(self) -> tuple[bytes, bool]:
        message = await self.receive()
        if message["type"] == "http.disconnect":
            raise _ClientGone
        chunk: bytes = message.get("body", b"")
        self._size += len(chunk)
        if self._size > self.limit:
            raise _BodyTooLarge
        return chunk, bool(message.get("more_body", False))

    async def disconnected(self) -> None:
        await self.read.wait()
        while (await self.receive())["type"] != "http.disconnect":
            pass


async def _cancel(*tasks: asyncio.Future[None]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _error(send: Send, error: tuple[int, str, str]) -> None:
    status, code, message = error
    await _answer(send, status, orjson.dumps({"code": code, "message": message}), b"application/json")


async def _answer(send: Send, status: int, body: bytes, content_type: bytes) -> None:
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", content_type), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
