"""WebAuthn: passkey registration and sign-in (/passkeys), admin passkeys."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
