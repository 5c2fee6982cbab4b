"""Routes of /realtime/v1: the websocket and the REST broadcast endpoints."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket

from server.core.context import AppContext
from server.realtime.api import broadcast_batch, broadcast_single
from server.realtime.hub import Hub
from server.realtime.socket import serve_socket


def build(ctx: AppContext) -> Starlette:
    hub = Hub(ctx)
    ctx.on_startup.append(hub.start)
    ctx.on_shutdown.append(hub.stop)

    async def websocket(ws: WebSocket) -> None:
        await serve_socket(ws, hub)

    app = Starlette(routes=[
        WebSocketRoute("/websocket", websocket),
        WebSocketRoute("/socket/websocket", websocket),
        Route("/api/broadcast", broadcast_batch(hub), methods=["POST"]),
        Route("/api/broadcast/{topic:path}/events/{event}", broadcast_single(hub), methods=["POST"]),
    ])
    app.state.hub = hub
    return app
