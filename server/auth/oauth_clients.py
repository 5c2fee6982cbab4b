"""OAuth 2.1 server clients, as GoTrue's internal/api/oauthserver: their administration
(/admin/oauth/clients) and dynamic registration (POST /oauth/clients/register, RFC 7591).

Only with GOTRUE_OAUTH_SERVER_ENABLED; otherwise every path answers GoTrue's 404
`feature_disabled` "OAuth server is disabled" (after the admin check, as GoTrue's middleware
order has it). Dynamic registration is public (no caller at all), counted in the
`oauth_client_register` rate-limit bucket, and refused with 403
`oauth_dynamic_client_registration_disabled` unless GOTRUE_OAUTH_SERVER_ALLOW_DYNAMIC_REGISTRATION;
it validates and answers as the admin creation, with registration_type "dynamic".

A confidential client's secret is 32 random bytes shown once, at creation or regeneration;
only its SHA-256 is stored (base64url, GoTrue's hashClientSecret). Redirect URIs and grant
types are stored comma-joined, as GoTrue stores them.

GoTrue quirks kept: creation errors are wrapped twice ("400: redirect_uris is required"),
update errors are not; any body that does not decode answers 400 `bad_json` "Invalid JSON
body"; an empty list answers `{}` (the `clients` field is omitempty). The list is paged when
`page` or `per_page` is given (as /admin/users: X-Total-Count and Link), whole otherwise.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import uuid
from typing import Any

import orjson
from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import gourl
from server.auth.admin import paginate, pagination_headers
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, forbidden, not_found
from server.auth.http import json_response, read_bounded
from server.auth.models import oauth_clients as oauth_client_rows
from server.auth.models.users import timestamp
from server.auth.service import AuthService

MAX_REDIRECT_URIS = 10
MAX_CLIENT_NAME_BYTES = 1024
MAX_URI_BYTES = 2048
GRANT_TYPES = ("authorization_code", "refresh_token")
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
PUBLIC, CONFIDENTIAL = "public", "confidential"
_DANGEROUS_SCHEMES = ("javascript", "data", "file", "vbscript", "about", "blob")
_LOOPBACK = ("localhost", "127.0.0.1", "::1")
NOT_FOUND = "OAuth client not found"


def _go_list(values: tuple[str, ...] | list[str]) -> str:
    """A []string as Go's %v prints it."""
    return "[" + " ".join(values) + "]"


class _Invalid(Exception):
    """A GoTrue validation error (validation_failed, 400), before any wrapping."""


# -- request parsing (Go's json.Decoder into the params struct) --------------------------------

def _invalid_json() -> AuthError:
    return bad_request(codes.BAD_JSON, "Invalid JSON body")


async def _read_params(request: Request) -> dict[str, Any]:
    raw = await read_bounded(request)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise _invalid_json() from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise _invalid_json()
    return data


def _text(data: dict[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise _invalid_json()
    return value


def _texts(data: dict[str, Any], key: str) -> list[str] | None:
    """A []string: null is absent, a null element decodes to "" (Go's zero value)."""
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(item is None or isinstance(item, str) for item in value):
        raise _invalid_json()
    return [item or "" for item in value]


# -- validation (oauthserver/service.go) -------------------------------------------------------

def _redirect_uri_problem(uri: str) -> str | None:
    if uri == "":
        return "redirect URI cannot be empty"
    try:
        parsed = gourl.parse(uri)
    except gourl.URLError:
        return "invalid URL format"
    if not parsed.scheme or not parsed.host:
        return "must have scheme and host"
    if parsed.scheme in _DANGEROUS_SCHEMES:
        return f"scheme '{parsed.scheme}' is not allowed for security reasons"
    if parsed.scheme == "http" and parsed.hostname() not in _LOOPBACK:
        return "HTTP scheme only allowed for localhost"
    if parsed.fragment:
        return "fragment not allowed in redirect URI"
    return None


def _check_redirect_uris(uris: list[str], required: bool) -> None:
    if required and not uris:
        raise _Invalid("redirect_uris is required")
    if not uris:
        raise _Invalid("redirect_uris cannot be empty")
    if len(uris) > MAX_REDIRECT_URIS:
        raise _Invalid(f"redirect_uris cannot exceed {MAX_REDIRECT_URIS} items")
    for uri in uris:
        # GoTrue bounds client_uri and logo_uri but not these, which anyone may now register:
        # the same bound here, and the URI is not echoed back.
        if len(uri.encode()) > MAX_URI_BYTES:
            raise _Invalid(f"invalid redirect_uri: cannot exceed {MAX_URI_BYTES} characters")
        problem = _redirect_uri_problem(uri)
        if problem:
            raise _Invalid(f"invalid redirect_uri '{uri}': {problem}")


def _check_grant_types(grant_types: list[str]) -> None:
    if not grant_types:
        raise _Invalid("grant_types cannot be empty")
    if any(grant not in GRANT_TYPES for grant in grant_types):
        raise _Invalid("grant_types must only contain 'authorization_code' and/or 'refresh_token'")


def _check_client_name(name: str) -> None:
    if len(name.encode()) > MAX_CLIENT_NAME_BYTES:  # Go's len() counts bytes
        raise _Invalid(f"client_name cannot exceed {MAX_CLIENT_NAME_BYTES} characters")


def _check_uri(name: str, uri: str) -> None:
    if uri == "":
        return
    if len(uri.encode()) > MAX_URI_BYTES:
        raise _Invalid(f"{name} cannot exceed {MAX_URI_BYTES} characters")
    try:
        gourl.parse_request_uri(uri)
    except gourl.URLError:
        raise _Invalid(f"{name} must be a valid URL") from None


def _type_of_method(method: str) -> str:
    return PUBLIC if method == "none" else CONFIDENTIAL


def _methods_of_type(client_type: str) -> tuple[str, ...]:
    return ("none",) if client_type == PUBLIC else ("client_secret_basic", "client_secret_post")


# -- storage -----------------------------------------------------------------------------------

def _new_secret() -> tuple[str, str]:
    """(secret, stored hash): GoTrue's generateClientSecret and hashClientSecret."""
    secret = base64.urlsafe_b64encode(secrets.token_bytes(32)).rstrip(b"=").decode()
    digest = base64.urlsafe_b64encode(hashlib.sha256(secret.encode()).digest()).rstrip(b"=").decode()
    return secret, digest


def client_json(row: dict[str, Any], secret: str | None = None) -> dict[str, Any]:
    """GoTrue's OAuthServerClientResponse (omitempty fields left out when empty)."""
    out: dict[str, Any] = {"client_id": str(row["id"])}
    if secret:
        out["client_secret"] = secret
    out["client_type"] = row["client_type"]
    redirect_uris = row["redirect_uris"].split(",") if row["redirect_uris"] else []
    grant_types = row["grant_types"].split(",") if row["grant_types"] else []
    if redirect_uris:
        out["redirect_uris"] = redirect_uris
    if row["token_endpoint_auth_method"]:
        out["token_endpoint_auth_method"] = row["token_endpoint_auth_method"]
    if grant_types:
        out["grant_types"] = grant_types
    out["response_types"] = ["code"]  # always "code" in OAuth 2.1
    for key in ("client_name", "client_uri", "logo_uri"):
        if row[key]:
            out[key] = row[key]
    out["registration_type"] = row["registration_type"]
    out["created_at"] = timestamp(row["created_at"])
    out["updated_at"] = timestamp(row["updated_at"])
    return out


# -- handlers ----------------------------------------------------------------------------------

def _require_enabled(svc: AuthService) -> None:
    if not svc.ctx.settings.oauth_server_enabled:
        raise not_found(codes.FEATURE_DISABLED, "OAuth server is disabled")


def _client_id(svc: AuthService, request: Request) -> uuid.UUID:
    _require_enabled(svc)  # after the route's admin check, as GoTrue
    try:
        return uuid.UUID(request.path_params["client_id"])
    except ValueError:
        raise bad_request(codes.VALIDATION_FAILED, "invalid client_id format") from None


def _register_params(data: dict[str, Any]) -> dict[str, Any]:
    """Validate a registration (OAuthServerClientRegisterParams.validate) and fill its defaults."""
    redirect_uris = _texts(data, "redirect_uris") or []
    grant_types = _texts(data, "grant_types") or []
    client_type = _text(data, "client_type") or ""
    method = _text(data, "token_endpoint_auth_method") or ""
    name, client_uri, logo_uri = (_text(data, key) or "" for key in ("client_name", "client_uri", "logo_uri"))
    _check_redirect_uris(redirect_uris, required=True)
    if grant_types:
        _check_grant_types(grant_types)
    _check_client_name(name)
    _check_uri("client_uri", client_uri)
    _check_uri("logo_uri", logo_uri)
    if client_type not in ("", PUBLIC, CONFIDENTIAL):
        raise _Invalid(f"client_type must be '{PUBLIC}' or '{CONFIDENTIAL}'")
    if method and method not in AUTH_METHODS:
        raise _Invalid(f"token_endpoint_auth_method must be one of: {_go_list(AUTH_METHODS)}")
    if client_type and method and client_type != _type_of_method(method):
        raise _Invalid(f"client_type '{client_type}' is inconsistent with token_endpoint_auth_method '{method}'"
                       f" (expected client_type '{_type_of_method(method)}')")
    client_type = client_type or (_type_of_method(method) if method else CONFIDENTIAL)
    return {"redirect_uris": ",".join(redirect_uris), "grant_types": ",".join(grant_types or GRANT_TYPES),
            "client_type": client_type, "method": method or _methods_of_type(client_type)[0],
            "client_name": name or None, "client_uri": client_uri or None, "logo_uri": logo_uri or None}


async def _register(svc: AuthService, request: Request, registration_type: str) -> Response:
    """GoTrue's registerOAuthServerClient: the body validated, the client stored (a confidential
    one with a new secret, shown in this answer only), 201. The registration type, the id and
    the secret are the server's: fields of those names in the body are ignored."""
    data = await _read_params(request)
    try:
        params = _register_params(data)
    except _Invalid as err:  # GoTrue wraps the validation error's text, "400: ..." included
        raise bad_request(codes.VALIDATION_FAILED, f"400: {err}") from None
    secret, secret_hash = _new_secret() if params["client_type"] == CONFIDENTIAL else (None, None)
    row = await in_transaction(svc.ctx, lambda conn: oauth_client_rows.insert(
        conn, secret_hash=secret_hash, registration_type=registration_type, client_type=params["client_type"],
        redirect_uris=params["redirect_uris"], grant_types=params["grant_types"], client_name=params["client_name"],
        client_uri=params["client_uri"], logo_uri=params["logo_uri"], auth_method=params["method"]),
        "Error creating OAuth client")
    return json_response(request, client_json(row, secret), status=201)


async def create_client(svc: AuthService, request: Request) -> Response:
    _require_enabled(svc)
    return await _register(svc, request, "manual")


async def register_client(svc: AuthService, request: Request) -> Response:
    """POST /oauth/clients/register: GoTrue's OAuthServerClientDynamicRegister, behind its route's
    middlewares in their order (requireOAuthServerEnabled, then the OAuthClientRegister limiter)."""
    _require_enabled(svc)
    await svc.limiter.check("oauth_client_register", request)
    if not svc.ctx.settings.oauth_server_allow_dynamic_registration:
        raise forbidden(codes.OAUTH_DYNAMIC_CLIENT_REGISTRATION_DISABLED, "Dynamic client registration is not enabled")
    return await _register(svc, request, "dynamic")


async def list_clients(svc: AuthService, request: Request) -> Response:
    _require_enabled(svc)
    paged = bool(request.query_params.get("page") or request.query_params.get("per_page"))
    page, per_page = paginate(request) if paged else (1, 0)

    async def work(conn: AsyncConnection) -> tuple[int, list[dict[str, Any]]]:
        total = await oauth_client_rows.count(conn)
        return total, await oauth_client_rows.page(conn, per_page or None, (page - 1) * per_page)

    total, rows = await in_transaction(svc.ctx, work, "Error listing OAuth clients")
    body = {"clients": [client_json(row) for row in rows]} if rows else {}
    headers = pagination_headers(svc.ctx, "admin/oauth/clients", page, per_page, total) if paged else None
    return json_response(request, body, headers=headers)


async def _load(conn: AsyncConnection, client_id: uuid.UUID, *, lock: bool = False) -> dict[str, Any]:
    row = await oauth_client_rows.by_id(conn, client_id, lock=lock)
    if row is None:
        raise not_found(codes.OAUTH_CLIENT_NOT_FOUND, NOT_FOUND)
    return row


async def get_client(svc: AuthService, request: Request) -> Response:
    client_id = _client_id(svc, request)
    row = await in_transaction(svc.ctx, lambda conn: _load(conn, client_id), "Error loading OAuth client")
    return json_response(request, client_json(row))


def _update_params(data: dict[str, Any]) -> dict[str, Any]:
    """The fields an update sets (OAuthServerClientUpdateParams), validated."""
    fields: dict[str, Any] = {"redirect_uris": _texts(data, "redirect_uris"), "grant_types": _texts(data, "grant_types"),
                              "client_name": _text(data, "client_name"), "client_uri": _text(data, "client_uri"),
                              "logo_uri": _text(data, "logo_uri"),
                              "token_endpoint_auth_method": _text(data, "token_endpoint_auth_method")}
    fields = {key: value for key, value in fields.items() if value is not None}
    if not fields:
        raise _Invalid("No fields provided for update")
    if "redirect_uris" in fields:
        _check_redirect_uris(fields["redirect_uris"], required=False)
        fields["redirect_uris"] = ",".join(fields["redirect_uris"])
    if "grant_types" in fields:
        _check_grant_types(fields["grant_types"])
        fields["grant_types"] = ",".join(fields["grant_types"])
    if "client_name" in fields:
        _check_client_name(fields["client_name"])
    for key in ("client_uri", "logo_uri"):
        if key in fields:
            _check_uri(key, fields[key])
    method = fields.get("token_endpoint_auth_method")
    if method is not None and method not in AUTH_METHODS:
        raise _Invalid(f"invalid token_endpoint_auth_method: must be one of {_go_list(AUTH_METHODS)}")
    for key in ("client_name", "client_uri", "logo_uri"):
        if key in fields:
            fields[key] = fields[key] or None  # "" clears the field, as GoTrue's StringPtr("")
    return fields


async def update_client(svc: AuthService, request: Request) -> Response:
    client_id = _client_id(svc, request)
    # GoTrue loads the client (404) before it reads the body
    await in_transaction(svc.ctx, lambda conn: _load(conn, client_id), "Error loading OAuth client")
    data = await _read_params(request)
    try:
        fields = _update_params(data)
    except _Invalid as err:  # update errors are not wrapped
        raise bad_request(codes.VALIDATION_FAILED, str(err)) from None

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        current = await _load(conn, client_id, lock=True)
        method = fields.get("token_endpoint_auth_method")
        if method is not None and method not in _methods_of_type(current["client_type"]):
            raise bad_request(codes.VALIDATION_FAILED,
                              f"token_endpoint_auth_method '{method}' is not valid for client_type"
                              f" '{current['client_type']}'; valid methods: {_go_list(_methods_of_type(current['client_type']))}")
        return await oauth_client_rows.update(conn, client_id, fields)

    row = await in_transaction(svc.ctx, work, "Error updating OAuth client")
    return json_response(request, client_json(row))


async def delete_client(svc: AuthService, request: Request) -> Response:
    client_id = _client_id(svc, request)

    async def work(conn: AsyncConnection) -> None:
        await _load(conn, client_id, lock=True)
        await oauth_client_rows.delete(conn, client_id)

    await in_transaction(svc.ctx, work, "Error deleting OAuth client")
    return Response(status_code=204)


async def regenerate_secret(svc: AuthService, request: Request) -> Response:
    client_id = _client_id(svc, request)
    secret, secret_hash = _new_secret()

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        current = await _load(conn, client_id, lock=True)
        if current["client_type"] != CONFIDENTIAL:
            raise bad_request(codes.VALIDATION_FAILED, "Cannot regenerate secret for public client")
        return await oauth_client_rows.set_secret_hash(conn, client_id, secret_hash)

    row = await in_transaction(svc.ctx, work, "Error regenerating OAuth client secret")
    return json_response(request, client_json(row, secret))


def secret_matches(provided: str, stored_hash: str | None) -> bool:
    """GoTrue's ValidateClientSecret: SHA-256 of the secret against the stored hash, in constant time."""
    if not stored_hash:
        return False
    try:
        stored = base64.urlsafe_b64decode(stored_hash + "=" * (-len(stored_hash) % 4))
    except ValueError:
        return False
    return secrets.compare_digest(hashlib.sha256(provided.encode()).digest(), stored)
