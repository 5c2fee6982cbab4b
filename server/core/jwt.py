"""JWT signing and verification shared by every service.

HS256 with the shared secret by default. API keys (anon, service_role) are JWTs too; with
the Supabase CLI's demo secret they are byte for byte the CLI's well-known local keys.

With a JWK file (SUPALITE_JWT_KEYS_FILE), user tokens are signed with its first private key
(RS256 or ES256, `kid` in the header) and every key's public part is published at
/auth/v1/.well-known/jwks.json; HS256 tokens stay valid, as on Supabase. The API keys are then
the ones the Supabase CLI makes with `signing_keys_path` (its generateJWT): the same claims,
signed with that first key, so `supalite status` prints what `supabase status` would.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jwt as pyjwt
from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.utils import der_to_raw_signature

from server.core.config import Settings

# Larger tokens are refused before any decoding. The tokens this server issues stay far below:
# their largest part, user_metadata and app_metadata, is bounded at 8 KiB each
# (server/auth/metadata.py), about 24 KiB once base64-encoded with the other claims; and
# proxies in front of Supabase (Cloudflare, nginx) refuse headers from 8 to 32 KiB anyway.
MAX_TOKEN_BYTES = 32 * 1024

# The `supabase start` payloads: signing them with the demo secret gives the CLI's keys.
_API_KEY_ISSUER = "supabase-demo"
_API_KEY_EXP = 1983812996


class JwtError(Exception):
    """A token that is malformed, forged, expired or of an unknown algorithm."""


# Compared by identity (eq=False): the verified-token cache is kept per set of keys
# (server/core/caller.py).
@dataclass(eq=False)
class JwtKeys:
    secret: str
    expiry: int = 3600
    # Asymmetric keys (kid -> public key object), from the JWK file when configured.
    verify_keys: dict[str, Any] = field(default_factory=dict)
    algorithms: tuple[str, ...] = ("HS256",)
    # The key user tokens are signed with (None: HS256 with the secret).
    signing_key: Any = None
    signing_alg: str = "HS256"
    signing_kid: str = ""
    # Public JWKs, as published at /.well-known/jwks.json.
    public_jwks: list[dict[str, Any]] = field(default_factory=list)

    def decode(self, token: str) -> dict[str, Any]:
        if len(token) > MAX_TOKEN_BYTES:
            raise JwtError(f"invalid JWT: token is larger than {MAX_TOKEN_BYTES} bytes")
        try:
            header = pyjwt.get_unverified_header(token)
        except pyjwt.PyJWTError as exc:
            raise JwtError(f"invalid JWT: {exc}") from None
        alg = header.get("alg")
        if alg not in self.algorithms:
            raise JwtError(f"invalid JWT: unsupported algorithm {alg!r}")
        key: Any = self.secret if alg == "HS256" else self._verify_key(header.get("kid"))
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

    def _verify_key(self, kid: Any) -> Any:
        if isinstance(kid, str) and kid in self.verify_keys:
            return self.verify_keys[kid]
        # A token without `kid` is accepted only when there is a single candidate key.
        if kid is None and len(self.verify_keys) == 1:
            return next(iter(self.verify_keys.values()))
        return None

    def sign(self, claims: Mapping[str, Any]) -> str:
        """Sign user tokens: with the asymmetric signing key when configured, else HS256."""
        if self.signing_key is None:
            return self.sign_hs256(claims)
        headers = {"kid": self.signing_kid} if self.signing_kid else None
        return pyjwt.encode(dict(claims), self.signing_key, algorithm=self.signing_alg, headers=headers)

    def sign_hs256(self, claims: Mapping[str, Any]) -> str:
        return pyjwt.encode(dict(claims), self.secret, algorithm="HS256")


_ASYMMETRIC = {"RSA": "RS256", "EC": "ES256"}
_PRIVATE_PARTS = ("d", "p", "q", "dp", "dq", "qi", "oth", "k")


def load_jwk_file(keys: JwtKeys, path: str) -> None:
    """Add the keys of a JWK file (a JWK, a JWK array, or a JWK set) to `keys`.

    The first key holding private material signs user tokens; every key verifies.
    """
    from jwt.algorithms import ECAlgorithm, RSAAlgorithm

    try:
        with open(path, encoding="utf-8") as fh:
            raw = json.load(fh)
    except (OSError, ValueError) as exc:
        raise JwtError(f"cannot read JWT keys file {path}: {exc}") from None
    jwks = raw.get("keys", [raw]) if isinstance(raw, dict) else raw
    if not isinstance(jwks, list):
        raise JwtError(f"JWT keys file {path}: expected a JWK, a JWK array or a JWK set")
    for index, jwk in enumerate(jwks):
        if not isinstance(jwk, dict) or jwk.get("kty") not in _ASYMMETRIC:
            continue  # oct keys: the HS256 secret setting covers the symmetric case
        alg = jwk.get("alg") or _ASYMMETRIC[jwk["kty"]]
        kid = str(jwk.get("kid") or f"key-{index}")
        loader = RSAAlgorithm if jwk["kty"] == "RSA" else ECAlgorithm
        try:
            key = loader.from_jwk(json.dumps(jwk))
        except (ValueError, TypeError, KeyError, pyjwt.PyJWTError) as exc:
            raise JwtError(f"JWT keys file {path}: invalid key {kid}: {exc}") from None
        # a private JWK (it has "d") signs; its public half verifies
        public = key.public_key() if isinstance(key, (rsa.RSAPrivateKey, ec.EllipticCurvePrivateKey)) else key
        keys.verify_keys[kid] = public
        public_jwk = {k: v for k, v in jwk.items() if k not in _PRIVATE_PARTS and k != "key_ops"}
        public_jwk.update({"kid": kid, "alg": alg, "use": "sig", "key_ops": ["verify"]})
        keys.public_jwks.append(public_jwk)
        if alg not in keys.algorithms:
            keys.algorithms = (*keys.algorithms, alg)
        if keys.signing_key is None and "d" in jwk:
            keys.signing_key, keys.signing_alg, keys.signing_kid = key, alg, kid


def keys_from_settings(settings: Settings) -> JwtKeys:
    keys = JwtKeys(secret=settings.jwt_secret, expiry=settings.jwt_expiry)
    if settings.jwt_keys_file:
        load_jwk_file(keys, settings.jwt_keys_file)
    return keys


def _api_key_claims(role: str) -> dict[str, Any]:
    # The CLI's CustomClaims, in its order. Its `exp` with signing keys is "now + 10 years";
    # the demo expiry (2032) keeps a key the same from one call, and one start, to the next.
    return {"iss": _API_KEY_ISSUER, "role": role, "exp": _API_KEY_EXP}


def api_key(keys: JwtKeys, role: str) -> str:
    """The HS256 API key of `role` (Supabase's legacy keys): with the CLI's demo secret, its
    well-known local keys."""
    return keys.sign_hs256(_api_key_claims(role))


def asymmetric_api_key(keys: JwtKeys, role: str) -> str:
    """The API key of `role` signed with the key that signs user tokens (the JWK file's first
    private key, its `kid` in the header), as the CLI's GenerateAsymmetricJWT. RS256 signatures
    are deterministic; ES256 ones are made so (RFC 6979), where OpenSSL offers it."""
    if keys.signing_alg != "ES256":
        return keys.sign(_api_key_claims(role))
    header = {"alg": "ES256", "kid": keys.signing_kid, "typ": "JWT"}  # sorted, as pyjwt and Go write it
    signing_input = b".".join(_b64(json.dumps(part, separators=(",", ":")).encode())
                              for part in (header, _api_key_claims(role)))
    try:
        der = keys.signing_key.sign(signing_input, ec.ECDSA(hashes.SHA256(), deterministic_signing=True))
    except UnsupportedAlgorithm:  # an OpenSSL before 3.2: a valid key still, different at each call
        return keys.sign(_api_key_claims(role))
    return (signing_input + b"." + _b64(der_to_raw_signature(der, keys.signing_key.curve))).decode()


def _b64(data: bytes) -> bytes:
    return base64.urlsafe_b64encode(data).rstrip(b"=")


def _default_api_key(settings: Settings, role: str) -> str:
    if not settings.jwt_keys_file:
        return api_key(JwtKeys(settings.jwt_secret), role)
    try:
        stamp = os.stat(settings.jwt_keys_file).st_mtime_ns
    except OSError:
        stamp = 0  # load_jwk_file says what is wrong with the file
    return _file_api_key(settings.jwt_secret, settings.jwt_keys_file, stamp, role)


@functools.lru_cache(maxsize=16)
def _file_api_key(secret: str, path: str, stamp: int, role: str) -> str:
    """With a JWK file: signed with its signing key, as the CLI with `signing_keys_path` (HS256
    when the file holds no private key). Cached per file version: the file is read once."""
    keys = JwtKeys(secret)
    load_jwk_file(keys, path)
    return api_key(keys, role) if keys.signing_key is None else asymmetric_api_key(keys, role)


def anon_key(settings: Settings) -> str:
    return settings.anon_key or _default_api_key(settings, "anon")


def service_role_key(settings: Settings) -> str:
    return settings.service_role_key or _default_api_key(settings, "service_role")


def derived_secret(settings: Settings, purpose: str) -> str:
    """A stable secret for `purpose`, derived from the JWT secret (same on every replica)."""
    return hmac.new(settings.jwt_secret.encode(), purpose.encode(), hashlib.sha256).hexdigest()[:40]
