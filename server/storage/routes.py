"""Routes of /storage/v1."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.context import AppContext


def build(ctx: AppContext) -> Starlette:
    async def status(request: Request) -> Response:
        return Response(status_code=200)

    return Starlette(routes=[Route("/status", status)])
