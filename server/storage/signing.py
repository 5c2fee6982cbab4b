"""Signed URL tokens: JWTs over `{url: "<bucket>/<name>"}` (downloads, optionally with
`transformations`) or `{url, owner, upsert}` (uploads), as supabase/storage signs them."""

from __future__ import annotations

import time
from typing import Any

from server.auth.jwt import JwtError, JwtKeys
from server.storage import errors

UPLOAD_URL_EXPIRY = 7200  # storage-api's signed upload URLs live two hours


def sign(keys: JwtKeys, payload: dict[str, Any], expires_in: int) -> str:
    now = int(time.time())
    claims = {k: v for k, v in payload.items() if v is not None and k != "role"}
    return keys.sign({**claims, "iat": now, "exp": now + expires_in})


def verify(keys: JwtKeys, token: str | None, bucket_id: str, name: str) -> dict[str, Any]:
    """Claims of a token signed for exactly `<bucket>/<name>`."""
    if not token:
        raise errors.StorageError("InvalidRequest", 400, "querystring must have required property 'token'")
    try:
        claims = keys.decode(token)
    except JwtError as exc:
        if "expired" in str(exc):
            raise errors.expired_signature() from None
        raise errors.invalid_jwt(str(exc)) from None
    if claims.get("url") != f"{bucket_id}/{name}":
        raise errors.invalid_signature()
    return claims


def expires_in(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise errors.invalid_parameter("expiresIn", "body must have required property 'expiresIn'")
    try:
        seconds = int(value)
    except ValueError:
        raise errors.invalid_parameter("expiresIn") from None
    if seconds < 1:
        raise errors.invalid_parameter("expiresIn", "body/expiresIn must be >= 1")
    return seconds
