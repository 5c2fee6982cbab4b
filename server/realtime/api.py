"""POST /realtime/v1/api/broadcast (batch) and /api/broadcast/{topic}/events/{event}
(realtime-js httpSend): broadcasts without a socket. A message to a private channel goes
out only when the caller may INSERT a broadcast message on its topic (RLS, checked as the
authenticator with the caller's role and claims, as REST does).

202 means every process has it: a message that cannot reach the other processes (or a
policy that cannot be checked) because the database is unavailable answers 503, in
Realtime's `{"message": ...}` error body, rather than an accepted message that is lost."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from server.core.caller import Caller, verified_caller
from server.core.health import DATABASE_UNAVAILABLE, is_unavailable
from server.core.jwt import JwtError
from server.realtime.auth import can_write
from server.realtime.bus import PublishError
from server.realtime.hub import Hub
from server.realtime.protocol import UserBroadcast

Endpoint = Callable[[Request], Awaitable[Response]]


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"message": message}, status_code=status)


async def _accepted(send: Awaitable[None]) -> Response:
    """202 once sent; 503 when the database could not take it."""
    try:
        await send
    except PublishError:
        return _error(503, DATABASE_UNAVAILABLE)
    except Exception as exc:
        if not is_unavailable(exc):
            raise
        return _error(503, DATABASE_UNAVAILABLE)
    return Response(status_code=202)


def _caller(hub: Hub, request: Request) -> Caller | JSONResponse:
    try:
        return verified_caller(hub.ctx.keys, request.headers)
    except JwtError as exc:
        return _error(401, str(exc))


def _validate(messages: Any) -> dict[str, Any]:
    errors: dict[str, Any] = {}
    if not isinstance(messages, list) or not messages:
        return {"messages": ["can't be blank"]}
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            errors[str(i)] = ["is invalid"]
            continue
        problems = {f: ["can't be blank"] for f in ("topic", "event") if not isinstance(m.get(f), str) or not m[f]}
        if "payload" not in m:
            problems["payload"] = ["can't be blank"]
        if problems:
            errors[str(i)] = problems
    return {"messages": errors} if errors else {}


async def _send(hub: Hub, caller: Caller, topic: str, event: str, message: UserBroadcast,
                private: bool, allowed: dict[str, bool]) -> None:
    if private:
        if topic not in allowed:
            allowed[topic] = await can_write(hub.ctx.api_pool, topic, caller, "broadcast")
        if not allowed[topic]:
            return
    await hub.broadcast(topic, private, message)


def broadcast_batch(hub: Hub) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        caller = _caller(hub, request)
        if isinstance(caller, JSONResponse):
            return caller
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            return JSONResponse({"errors": {"body": ["is invalid JSON"]}}, status_code=422)
        messages = body.get("messages") if isinstance(body, dict) else None
        errors = _validate(messages)
        if errors or not isinstance(messages, list):  # _validate refuses anything but a list
            return JSONResponse({"errors": errors}, status_code=422)
        allowed: dict[str, bool] = {}

        async def send_all() -> None:
            for m in messages:
                await _send(hub, caller, m["topic"], m["event"], UserBroadcast.from_json(m["event"], m["payload"]),
                            bool(m.get("private")), allowed)

        return await _accepted(send_all())

    return endpoint


def broadcast_single(hub: Hub) -> Endpoint:
    async def endpoint(request: Request) -> Response:
        caller = _caller(hub, request)
        if isinstance(caller, JSONResponse):
            return caller
        topic, event = request.path_params["topic"], request.path_params["event"]
        raw = await request.body()
        if request.headers.get("content-type", "").startswith("application/octet-stream"):
            message = UserBroadcast(event, raw, is_json=False)
        else:
            try:
                message = UserBroadcast.from_json(event, orjson.loads(raw))
            except orjson.JSONDecodeError:
                return JSONResponse({"errors": {"payload": ["is invalid JSON"]}}, status_code=422)
        private = request.query_params.get("private") == "true"
        return await _accepted(_send(hub, caller, topic, event, message, private, {}))

    return endpoint
