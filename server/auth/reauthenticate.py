"""GET /reauthenticate: a nonce by mail (or SMS) that a sensitive change must present."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
