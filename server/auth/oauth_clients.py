"""OAuth 2.1 server administration: /admin/oauth/clients."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
