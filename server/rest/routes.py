"""Routes of /rest/v1."""

from __future__ import annotations

from starlette.applications import Starlette

from server.context import AppContext


def build(ctx: AppContext) -> Starlette:
    return Starlette(routes=[])
