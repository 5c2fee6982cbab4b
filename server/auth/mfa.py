"""Multi-factor authentication: /factors enroll, challenge, verify, unenroll (TOTP, phone), admin factors."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
