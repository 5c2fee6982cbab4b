"""Storage-API-compatible /storage/v1."""

from server.storage.routes import build

__all__ = ["build"]
