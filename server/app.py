"""create_app(settings): one ASGI app serving /auth/v1, /rest/v1, /storage/v1, /realtime/v1
and the web app, over the pools of one process."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from server import auth, realtime, rest, storage, web
from server.auth.jwt import keys_from_settings
from server.config import Settings, load_settings
from server.context import AppContext
from server.db.database import api_conninfo
from server.db.pool import make_pool


def build_context(settings: Settings) -> AppContext:
    if not settings.database_url:
        raise RuntimeError("create_app needs settings.database_url (supalite serve resolves it)")
    return AppContext(
        settings=settings,
        keys=keys_from_settings(settings),
        api_pool=make_pool(api_conninfo(settings, settings.database_url), settings.db_pool_size, "api"),
        admin_pool=make_pool(settings.database_url, max(2, settings.db_pool_size // 2), "admin"),
    )


REST_PREFIX = "/rest/v1"


class SupaliteApp(Starlette):
    """Starlette, except that /rest/v1/... (the hottest path) goes straight to the REST app.

    The REST app is a bare ASGI app that answers every error itself, so Starlette's router
    and middleware layers add nothing there but cost; the scope it gets is the one the
    `Mount` would give it (root_path extended by the prefix).
    """

    def __init__(self, *, rest_app: ASGIApp, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rest_app = rest_app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(REST_PREFIX + "/"):
            scope["app"] = self
            scope["root_path"] = scope.get("root_path", "") + REST_PREFIX
            await self.rest_app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def create_app(settings: Settings) -> Starlette:
    ctx = build_context(settings)
    rest_app = rest.build(ctx)

    async def health(request: Request) -> JSONResponse:
        async with ctx.api_pool.connection() as conn:
            await conn.execute("select 1")
        return JSONResponse({"status": "ok"})

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await ctx.api_pool.open(wait=True, timeout=30)
        await ctx.admin_pool.open(wait=True, timeout=30)
        try:
            for hook in ctx.on_startup:
                await hook()
            yield
        finally:
            for hook in reversed(ctx.on_shutdown):
                await hook()
            await ctx.admin_pool.close()
            await ctx.api_pool.close()

    routes = [
        Route("/health", health),
        Mount("/auth/v1", app=auth.build(ctx)),
        Mount(REST_PREFIX, app=rest_app),
        Mount("/storage/v1", app=storage.build(ctx)),
        Mount("/realtime/v1", app=realtime.build(ctx)),
        Mount("/inbox", app=auth.inbox_app(ctx)),
        Mount("/", app=web.build(ctx)),
    ]
    app = SupaliteApp(rest_app=rest_app, routes=routes, lifespan=lifespan)
    app.state.ctx = ctx
    return app


def app_from_environment() -> Starlette:
    """uvicorn factory for worker processes: settings come from the environment."""
    return create_app(load_settings())
