"""External OAuth/OIDC providers: /authorize, /callback, identity linking; SAML and web3 refusals."""

from __future__ import annotations

from server.auth.service import RouteSpec

ROUTES: list[RouteSpec] = []
