"""PostgREST-compatible /rest/v1."""

from server.rest.service import build

__all__ = ["build"]
