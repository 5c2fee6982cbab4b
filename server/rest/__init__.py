"""PostgREST-compatible /rest/v1."""

from server.rest.routes import build

__all__ = ["build"]
