"""Realtime-compatible /realtime/v1."""

from server.realtime.routes import build

__all__ = ["build"]
