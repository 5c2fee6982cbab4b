"""PostgREST-compatible /rest/v1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from server.context import AppContext


def build(ctx: "AppContext") -> Any:
    # Imported lazily so the parser and planner modules import without the app's services.
    from server.rest.routes import build as _build

    return _build(ctx)


__all__ = ["build"]
