"""JWT signing and verification shared by every service.

HS256 with the shared secret by default. API keys (anon, service_role) are JWTs too; with
the Supabase CLI's demo secret they are byte for byte the CLI's well-known local keys.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass, field
from typing import Any, Mapping

import jwt as pyjwt

from server.config import Settings

# The `supabase start` payloads: signing them with the demo secret gives the CLI's keys.
_API_KEY_ISSUER = "supabase-demo"
_API_KEY_EXP = 1983812996


class JwtError(Exception):
    """A token that is malformed, forged, expired or of an unknown algorithm."""


@dataclass
class JwtKeys:
    secret: str
    expiry: int = 3600
    # Asymmetric keys (kid -> key) are added by the auth service when configured.
    verify_keys: dict[str, Any] = field(default_factory=dict)
    algorithms: tuple[str, ...] = ("HS256",)

    def decode(self, token: str) -> dict[str, Any]:
        try:
            header = pyjwt.get_unverified_header(token)
        except pyjwt.PyJWTError as exc:
            raise JwtError(f"invalid JWT: {exc}") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise JwtError(f"invalid JWT: unsupported algorithm {alg!r}")
        key: Any = self.secret if alg == "HS256" else self.verify_keys.get(header.get("kid", ""))
        if key is None:
            raise JwtError("invalid JWT: unknown signing key")
        try:
            claims = pyjwt.decode(token, key, algorithms=[alg], options={"verify_aud": False, "require": []})
        except pyjwt.ExpiredSignatureError:
            raise JwtError("JWT expired") from None
        except pyjwt.PyJWTError as exc:
            raise JwtError(f"invalid JWT: {exc}") from None
        if not isinstance(claims, dict):
            raise JwtError("invalid JWT: claims are not an object")
        return claims

    def sign(self, claims: Mapping[str, Any]) -> str:
        return pyjwt.encode(dict(claims), self.secret, algorithm="HS256")


def keys_from_settings(settings: Settings) -> JwtKeys:
    return JwtKeys(secret=settings.jwt_secret, expiry=settings.jwt_expiry)


def api_key(keys: JwtKeys, role: str) -> str:
    return keys.sign({"iss": _API_KEY_ISSUER, "role": role, "exp": _API_KEY_EXP})


def anon_key(settings: Settings) -> str:
    return settings.anon_key or api_key(keys_from_settings(settings), "anon")


def service_role_key(settings: Settings) -> str:
    return settings.service_role_key or api_key(keys_from_settings(settings), "service_role")


def derived_secret(settings: Settings, purpose: str) -> str:
    """A stable secret for `purpose`, derived from the JWT secret (same on every replica)."""
    return hmac.new(settings.jwt_secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()[:40]


def bearer_token(headers: Mapping[str, str]) -> str | None:
    """The token a request carries: `Authorization: Bearer`, else the `apikey` header.

    Supabase's gateway turns `apikey` into the Authorization header when none is sent; a
    request with neither is anonymous.
    """
    auth = headers.get("authorization")
    if auth:
        scheme, _, token = auth.partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            return token.strip()
    apikey = headers.get("apikey")
    return apikey.strip() if apikey and apikey.strip() else None


def request_claims(keys: JwtKeys, headers: Mapping[str, str]) -> dict[str, Any]:
    """Claims of the request's token, or `{"role": "anon"}` without one. Raises JwtError."""
    token = bearer_token(headers)
    if token is None:
        return {"role": "anon"}
    claims = keys.decode(token)
    claims.setdefault("role", "anon")
    return claims
