"""GoTrue-compatible /auth/v1."""

from server.auth.routes import build

__all__ = ["build"]
