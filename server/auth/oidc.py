"""OpenID Connect with external providers: discovery, the code exchange, JWKS and ID tokens.

What GoTrue does with go-oidc and golang.org/x/oauth2: the provider's metadata comes from
`<issuer>/.well-known/openid-configuration` (its `issuer` must be the configured one), ID
tokens are verified against the provider's JWKS (an asymmetric signature, the issuer, the
expiry; the audience and nonce are checked by the callers, which know what to expect), and
the code is exchanged at the token endpoint with the client's id and secret.

Provider answers are bounded (1 MiB) and time out after 10 s (GoTrue's default); discovery
documents and key sets are kept 10 minutes per process, and a token signed by a key not in
the cached set refetches the set (at most every 30 s).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time
from dataclasses import dataclass
from typing import Any

import httpx
import jwt as pyjwt
import orjson

TIMEOUT_SECONDS = 10.0
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_ID_TOKEN_BYTES = 16 * 1024
CACHE_SECONDS = 600.0
JWKS_REFETCH_SECONDS = 30.0
# go-oidc's supported algorithms: asymmetric only (never HS*, never none).
ALGORITHMS = ("RS256", "RS384", "RS512", "ES256", "ES384", "ES512", "PS256", "PS384", "PS512", "EdDSA")
_HASHES = {"256": hashlib.sha256, "384": hashlib.sha384, "512": hashlib.sha512}
GOOGLE_ISSUER = "https://accounts.google.com"
GOOGLE_ISSUER_WITHOUT_SCHEME = "accounts.google.com"


class OidcError(Exception):
    """The provider could not be reached, answered badly, or the token does not verify."""


@dataclass(frozen=True)
class Discovery:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    jwks_uri: str
    userinfo_endpoint: str


_discoveries: dict[str, tuple[float, Discovery]] = {}
_key_sets: dict[str, tuple[float, dict[str, Any]]] = {}


async def _get_json(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
    try:
        async with client.stream(method, url, **kwargs) as response:
            raw = bytearray()
            async for chunk in response.aiter_bytes():
                raw += chunk
                if len(raw) > MAX_RESPONSE_BYTES:
                    raise OidcError(f"{url}: answer larger than {MAX_RESPONSE_BYTES} bytes")
            status = response.status_code
    except httpx.HTTPError as exc:
        raise OidcError(f"{url}: {exc.__class__.__name__}: {exc}") from None
    if not 200 <= status < 300:
        raise OidcError(f"{url}: {status}: {bytes(raw[:200]).decode(errors='replace')}")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise OidcError(f"{url}: the answer is not JSON") from None
    if not isinstance(data, dict):
        raise OidcError(f"{url}: the answer is not a JSON object")
    return data


def client() -> httpx.AsyncClient:
    # Redirects are not followed: a provider endpoint answers where it is.
    return httpx.AsyncClient(timeout=TIMEOUT_SECONDS, follow_redirects=False)


async def discover(issuer: str, *, any_issuer: bool = False) -> Discovery:
    """The provider's metadata (go-oidc's NewProvider), cached. `any_issuer`: the document may
    name another issuer (Azure's multi-tenant endpoints name a templated one), for endpoints
    only: tokens are then verified against their own issuer's discovery."""
    cached = _discoveries.get(issuer)
    if cached and cached[0] > time.monotonic():
        return cached[1]
    async with client() as http:
        doc = await _get_json(http, "GET", issuer.rstrip("/") + "/.well-known/openid-configuration")
    if doc.get("issuer") != issuer and not any_issuer:
        raise OidcError(f"oidc: issuer did not match the issuer returned by provider, expected {issuer!r}"
                        f" got {doc.get('issuer')!r}")
    fields = {}
    for name in ("authorization_endpoint", "token_endpoint", "jwks_uri", "userinfo_endpoint"):
        value = doc.get(name, "")
        if not isinstance(value, str) or (not value and name != "userinfo_endpoint"):
            raise OidcError(f"oidc: provider metadata has no {name}")
        fields[name] = value
    found = Discovery(issuer=issuer, **fields)
    _discoveries[issuer] = (time.monotonic() + CACHE_SECONDS, found)
    return found


async def _keys(discovery: Discovery, kid: str | None) -> dict[str, Any]:
    """The provider's key set as {kid: jwk}, refetched when `kid` is not in the cached one."""
    cached = _key_sets.get(discovery.jwks_uri)
    now = time.monotonic()
    if cached and (cached[0] > now - CACHE_SECONDS) and (kid is None or kid in cached[1]
                                                         or cached[0] > now - JWKS_REFETCH_SECONDS):
        return cached[1]
    async with client() as http:
        doc = await _get_json(http, "GET", discovery.jwks_uri)
    keys = doc.get("keys")
    if not isinstance(keys, list):
        raise OidcError("oidc: the key set has no keys")
    found = {str(k.get("kid", "")): k for k in keys if isinstance(k, dict)}
    _key_sets[discovery.jwks_uri] = (now, found)
    return found


async def verify_id_token(discovery: Discovery, token: str, *, audiences: tuple[str, ...] | None = None,
                          access_token: str = "") -> dict[str, Any]:
    """The claims of a valid ID token from this provider (go-oidc's IDTokenVerifier.Verify).

    `audiences`: when given, the token's `aud` must hold one of them. With `access_token`, a
    token that has an `at_hash` must match it (ParseIDToken's access token check).
    """
    if len(token) > MAX_ID_TOKEN_BYTES:
        raise OidcError("oidc: the ID token is too large")
    try:
        header = pyjwt.get_unverified_header(token)
    except pyjwt.PyJWTError as exc:
        raise OidcError(f"oidc: malformed jwt: {exc}") from None
    alg, kid = header.get("alg"), header.get("kid")
    if alg not in ALGORITHMS:
        raise OidcError(f"oidc: id token signed with unsupported algorithm, expected {list(ALGORITHMS)} got {alg!r}")
    if kid is not None and not isinstance(kid, str):
        raise OidcError("oidc: malformed jwt: kid is not a string")
    keys = await _keys(discovery, kid)
    candidates = [keys[kid]] if kid is not None and kid in keys else ([] if kid is not None else list(keys.values()))
    claims: dict[str, Any] | None = None
    for jwk in candidates:
        try:
            key = pyjwt.PyJWK(jwk, algorithm=alg).key
            claims = pyjwt.decode(token, key, algorithms=[alg], issuer=issuers(discovery.issuer),
                                  options={"verify_aud": False, "require": ["exp", "iss"]})
            break
        except pyjwt.InvalidSignatureError:
            continue
        except pyjwt.PyJWTError as exc:
            raise OidcError(f"oidc: {exc}") from None
    if claims is None:
        raise OidcError("failed to verify signature: failed to verify id token signature")
    if audiences is not None and not set(audience_list(claims)) & {a for a in audiences if a}:
        raise OidcError(f"oidc: expected audience in {list(audiences)} got {audience_list(claims)}")
    at_hash = claims.get("at_hash")
    if access_token and isinstance(at_hash, str) and not hmac_equal(at_hash, _at_hash(alg, access_token)):
        raise OidcError("oidc: access token hash does not match value in ID token")
    return claims


def issuers(issuer: str) -> list[str]:
    """The `iss` values go-oidc accepts for a provider: its issuer, and for Google the
    scheme-less form Google sometimes puts in its tokens."""
    return [issuer, GOOGLE_ISSUER_WITHOUT_SCHEME] if issuer == GOOGLE_ISSUER else [issuer]


def unverified_issuer(token: str) -> str:
    """The `iss` a token names, unverified (DetectAzureIDTokenIssuer): which issuer's keys to
    verify it with, for a provider whose tokens come from many issuers."""
    if len(token) > MAX_ID_TOKEN_BYTES:
        raise OidcError("oidc: the ID token is too large")
    try:
        issuer = pyjwt.decode(token, options={"verify_signature": False}).get("iss")
    except pyjwt.PyJWTError as exc:
        raise OidcError(f"oidc: malformed jwt: {exc}") from None
    if not isinstance(issuer, str):
        raise OidcError("oidc: the ID token has no issuer")
    return issuer


def audience_list(claims: dict[str, Any]) -> list[str]:
    aud = claims.get("aud")
    if isinstance(aud, str):
        return [aud]
    if isinstance(aud, list):
        return [a for a in aud if isinstance(a, str)]
    return []


def _at_hash(alg: str, access_token: str) -> str:
    digest = _HASHES.get(alg[-3:], hashlib.sha256)(access_token.encode()).digest()
    return base64.urlsafe_b64encode(digest[: len(digest) // 2]).rstrip(b"=").decode()


def hmac_equal(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


@dataclass(frozen=True)
class ProviderTokens:
    access_token: str
    refresh_token: str
    id_token: str


async def exchange_code(discovery: Discovery, *, code: str, client_id: str, secret: str,
                        redirect_uri: str) -> ProviderTokens:
    """The authorization code grant at the provider's token endpoint (client_secret_basic)."""
    async with client() as http:
        data = await _get_json(http, "POST", discovery.token_endpoint,
                               data={"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri},
                               auth=(client_id, secret), headers={"Accept": "application/json"})
    access_token = data.get("access_token")
    if not isinstance(access_token, str) or not access_token:
        raise OidcError("oauth2: server response missing access_token")
    refresh, id_token = data.get("refresh_token", ""), data.get("id_token", "")
    return ProviderTokens(access_token, refresh if isinstance(refresh, str) else "",
                          id_token if isinstance(id_token, str) else "")


async def userinfo(discovery: Discovery, access_token: str) -> dict[str, Any]:
    if not discovery.userinfo_endpoint:
        raise OidcError("oidc: provider has no userinfo endpoint")
    async with client() as http:
        return await _get_json(http, "GET", discovery.userinfo_endpoint,
                               headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json"})
