"""POST /invite: an admin invites a user by mail."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
