"""Signed URL tokens: JWTs over `{url: "<bucket>/<name>", scope}` (downloads, optionally
with `transformations`) or `{url, owner, upsert, scope}` (uploads), as supabase/storage
signs them.

A token is bound to its object (`url`) and to its operation (`scope`), so a download
token can never be replayed to write. Tokens signed before scopes existed are told apart
as storage-api does: only upload tokens carry `upsert`.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from server.core.jwt import JwtError, JwtKeys
from server.storage import errors

UPLOAD_URL_EXPIRY = 7200  # storage-api's signed upload URLs live two hours
DOWNLOAD = "download"
UPLOAD = "upload"
# The latest expiry an HTTP date (Expires header) can carry: 9999-12-31T23:59:59Z.
MAX_EXPIRY_TIMESTAMP = 253402300799


def sign(keys: JwtKeys, payload: dict[str, Any], expires_in: int, scope: str) -> str:
    now = int(time.time())
    claims = {k: v for k, v in payload.items() if v is not None and k != "role"}
    return keys.sign({**claims, "scope": scope, "iat": now, "exp": now + expires_in})


def _has_scope(claims: Mapping[str, object], scope: str) -> bool:
    if "scope" in claims:
        return claims["scope"] == scope
    return ("upsert" in claims) == (scope == UPLOAD)


def verify(keys: JwtKeys, token: str | None, bucket_id: str, name: str, scope: str) -> dict[str, Any]:
    """Claims of a token signed for exactly `<bucket>/<name>` and `scope`."""
    if not token:
        raise errors.StorageError("InvalidRequest", 400, "querystring must have required property 'token'")
    try:
        claims = keys.decode(token)
    except JwtError as exc:
        if "expired" in str(exc):
            raise errors.expired_signature() from None
        raise errors.invalid_jwt(str(exc)) from None
    if claims.get("url") != f"{bucket_id}/{name}" or not _has_scope(claims, scope):
        raise errors.invalid_signature()
    if not isinstance(claims.get("exp"), int):
        raise errors.invalid_signature()
    return claims


def expires_in(value: object) -> int:
    """`expiresIn` of a signing request: whole seconds, at least 1, and an expiry an HTTP
    date can still express (storage-api refuses expiries it cannot represent either)."""
    if value is None:
        raise errors.StorageError("InvalidRequest", 400, "body must have required property 'expiresIn'")
    if isinstance(value, str) and value.strip().isdigit() and len(value.strip()) <= 20:
        value = int(value.strip())  # storage-api's schema coerces numeric strings
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.invalid_parameter("expiresIn", "body/expiresIn must be integer")
    if value < 1:
        raise errors.invalid_parameter("expiresIn", "body/expiresIn must be >= 1")
    if value > MAX_EXPIRY_TIMESTAMP - int(time.time()):
        raise errors.invalid_parameter("expiresIn")
    return value
