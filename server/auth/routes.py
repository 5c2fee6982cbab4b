"""Routes of /auth/v1."""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server.context import AppContext

VERSION = "v2.170.0-supalite"


def build(ctx: AppContext) -> Starlette:
    async def health(request: Request) -> JSONResponse:
        return JSONResponse({
            "version": VERSION,
            "name": "GoTrue",
            "description": "GoTrue is a user registration and authentication API",
        })

    return Starlette(routes=[Route("/health", health)])
