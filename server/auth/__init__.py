"""GoTrue-compatible /auth/v1, and the dev inbox mounted at /inbox."""

from server.auth.inbox import inbox_app, inbox_routes
from server.auth.routes import build

__all__ = ["build", "inbox_app", "inbox_routes"]
