"""create_app(settings): one ASGI app serving /auth/v1, /rest/v1, /storage/v1, /realtime/v1
and the web app, over the pools of one process."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from server import auth, functions, realtime, rest, storage, web
from server.core.config import Settings
from server.core.context import AppContext, build_context
from server.core.health import is_unavailable
from server.provision.settings import load_settings

REST_PREFIX = "/rest/v1"
SHUTDOWN_POOL_TIMEOUT = 2.0  # seconds a closing pool waits for its background work
SHUTDOWN_HOOKS_TIMEOUT = 2.0  # then the database is taken as frozen and connections severed
log = logging.getLogger("supalite")


class SupaliteApp(Starlette):
    """Starlette, except that /rest/v1/... (the hottest path) goes straight to the REST app.
    Most REST requests never reach it: the REST lane (server.serve.rest_lane) finds `rest_app` here
    and answers them from the HTTP parser.

    The REST app is a bare ASGI app that answers every error itself, so Starlette's router
    and middleware layers add nothing there but cost; the scope it gets is the one the
    `Mount` would give it (root_path extended by the prefix).
    """

    def __init__(self, *, rest_app: ASGIApp, rest_lane: bool = True, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rest_app = rest_app
        self.rest_lane = rest_lane  # SUPALITE_REST_LANE: off sends every request through ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"].startswith(REST_PREFIX + "/"):
            scope["app"] = self
            scope["root_path"] = scope.get("root_path", "") + REST_PREFIX
            await self.rest_app(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


async def shut_down_services(ctx: AppContext) -> None:
    """Run the services' shutdown hooks (last registered first), bounded in time.

    A hook may still talk to the database (realtime removes its node's rows); when the
    database is frozen that would wait forever, so after SHUTDOWN_HOOKS_TIMEOUT every
    connection is severed and the hooks fail fast.
    """
    async def run_hooks() -> None:
        for hook in reversed(ctx.on_shutdown):
            try:
                await hook()
            except Exception:
                log.warning("shutdown hook %s failed", getattr(hook, "__qualname__", hook), exc_info=True)

    task = asyncio.create_task(run_hooks())
    done, _ = await asyncio.wait({task}, timeout=SHUTDOWN_HOOKS_TIMEOUT)
    if not done:
        log.warning("shutdown: the database does not answer; closing its connections")
        ctx.health.sever_all()
        done, _ = await asyncio.wait({task}, timeout=SHUTDOWN_POOL_TIMEOUT)
        if not done:
            task.cancel()


def create_app(settings: Settings) -> Starlette:
    ctx = build_context(settings)
    rest_app = rest.build(ctx)
    realtime_app = realtime.build(ctx)

    async def health(request: Request) -> JSONResponse:
        """200 when every service can reach the database; 503 naming what is down otherwise."""
        database = ctx.health.status()
        if ctx.health.up:
            try:
                async with ctx.admin_pool.connection() as conn:
                    await conn.execute("select 1")
            except Exception as exc:
                if not is_unavailable(exc):
                    raise
                database = {"status": "down", "since_seconds": 0.0}
        up = database["status"] == "up"
        part = "up" if up else "down (database unavailable)"
        # Realtime is up once its hub listens: before, other processes' messages would not reach it.
        realtime_part = "down (not listening yet)" if up and not realtime_app.state.hub.ready() else part
        up = up and realtime_part == "up"
        body = {"status": "ok" if up else "unavailable", "database": database,
                "services": {"auth": part, "rest": part, "storage": part, "realtime": realtime_part}}
        return JSONResponse(body, status_code=200 if up else 503)

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        await ctx.api_pool.open(wait=True, timeout=30)
        await ctx.admin_pool.open(wait=True, timeout=30)
        await ctx.health.start()
        await ctx.listener.start()
        try:
            for hook in ctx.on_startup:
                await hook()
            yield
        finally:
            await shut_down_services(ctx)
            await ctx.listener.stop()
            await ctx.health.stop()
            await ctx.admin_pool.close(timeout=SHUTDOWN_POOL_TIMEOUT)
            await ctx.api_pool.close(timeout=SHUTDOWN_POOL_TIMEOUT)

    routes = [
        Route("/health", health),
        Mount("/auth/v1", app=auth.build(ctx)),
        Mount(REST_PREFIX, app=rest_app),
        Mount("/storage/v1", app=storage.build(ctx)),
        Mount("/realtime/v1", app=realtime_app),
        Mount("/functions/v1", app=functions.build(ctx)),
        *auth.inbox_routes(ctx),  # the dev inbox, on a dev server only
        Mount("/", app=web.build(ctx)),
    ]
    app = SupaliteApp(rest_app=rest_app, rest_lane=ctx.settings.rest_lane, routes=routes, lifespan=lifespan)
    app.state.ctx = ctx
    return app


def app_from_environment() -> Starlette:
    """uvicorn factory for worker processes: settings come from the environment."""
    return create_app(load_settings())
