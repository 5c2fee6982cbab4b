"""The web app: files of web/dist, and index.html for every other path (SPA fallback).

The API URL and anon key reach the app at run time through /config.js, not baked in."""

from __future__ import annotations

import json

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route

from server.core.context import AppContext
from server.core.jwt import anon_key

_NOT_BUILT = "<!doctype html><title>supalite</title><p>The web app is not built (make web).</p>"


def build(ctx: AppContext) -> Starlette:
    dist = (ctx.settings.web_dist or ctx.settings.project_dir / "web" / "dist").resolve()
    runtime_config = {"supabaseUrl": ctx.settings.api_url, "supabaseAnonKey": anon_key(ctx.settings)}

    async def config_js(request: Request) -> Response:
        # Served under the URL the browser used, so the app works behind any host name.
        config = dict(runtime_config, supabaseUrl=str(request.base_url).rstrip("/"))
        body = f"window.__SUPALITE__ = {json.dumps(config)};\n"
        return Response(body, media_type="application/javascript", headers={"cache-control": "no-store"})

    async def serve(request: Request) -> Response:
        relative = request.path_params.get("path", "")
        candidate = (dist / relative).resolve()
        if relative and candidate.is_file() and candidate.is_relative_to(dist):
            cache = "public, max-age=31536000, immutable" if "/assets/" in f"/{relative}" else "no-cache"
            return FileResponse(candidate, headers={"cache-control": cache})
        index = dist / "index.html"
        if index.is_file():
            return FileResponse(index, headers={"cache-control": "no-cache"})
        return HTMLResponse(_NOT_BUILT)

    return Starlette(routes=[Route("/config.js", config_js), Route("/{path:path}", serve)])
