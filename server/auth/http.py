"""Request parsing and responses shared by the endpoint modules.

GoTrue decodes bodies into typed Go structs: malformed JSON and values of the wrong type both
answer 400 `bad_json` ("Could not parse request body as JSON: ...").

Bodies are bounded (GoTrue sets no bound of its own): the largest legitimate one, a sign-up or
an admin update with both metadata objects at their bound, is under 20 KiB. A larger body is
answered 413 as soon as its Content-Length or the bytes read so far exceed the bound, and the
connection is closed rather than the rest read.
"""

from __future__ import annotations

import ipaddress
import uuid
from typing import Any, TypeVar

import orjson
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth.errors import API_VERSION_HEADER, AuthError, api_version, bad_request, not_found
from server.core import body as core_body

MAX_BODY_BYTES = 128 * 1024
_T = TypeVar("_T")


def json_response(request: Request, body: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
    out = dict(headers or {})
    version = api_version(request)
    if version:
        out[API_VERSION_HEADER] = version
    return Response(orjson.dumps(body), status_code=status, headers=out, media_type="application/json")


def _bad_json(detail: str) -> AuthError:
    return bad_request(codes.BAD_JSON, f"Could not parse request body as JSON: {detail}")


class Body:
    """A request's JSON object with typed getters (GoTrue's struct decoding)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def _get(self, key: str, kind: type[_T], kind_name: str) -> _T | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
            raise _bad_json(f"json: cannot unmarshal {type(value).__name__} into Go struct field .{key} of type {kind_name}")
        return value

    def text(self, key: str) -> str:
        return self._get(key, str, "string") or ""

    def opt_text(self, key: str) -> str | None:
        return self._get(key, str, "string")

    def flag(self, key: str, default: bool = False) -> bool:
        value = self._get(key, bool, "bool")
        return default if value is None else value

    def obj(self, key: str) -> dict[str, Any] | None:
        return self._get(key, dict, "map[string]interface {}")

    def has(self, key: str) -> bool:
        return key in self.data


def _too_large() -> AuthError:
    return AuthError(413, codes.VALIDATION_FAILED, f"Request body too large: at most {MAX_BODY_BYTES} bytes",
                     headers={"Connection": "close"})


async def read_bounded(request: Request) -> bytes:
    """The request body, refused (413) past MAX_BODY_BYTES before more of it is read."""
    return await core_body.read_bounded(request.stream(), core_body.declared_length(request.headers),
                                        MAX_BODY_BYTES, _too_large)


async def read_body(request: Request, *, allow_empty: bool = False) -> Body:
    raw = await read_bounded(request)
    if not raw.strip():
        if allow_empty:
            return Body({})
        raise _bad_json("unexpected end of JSON input")
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        raise _bad_json(str(exc).split(":")[0]) from None
    if data is None:
        return Body({})
    if not isinstance(data, dict):
        raise _bad_json(f"json: cannot unmarshal {type(data).__name__} into Go value of type object")
    return Body(data)


def client_ip(request: Request) -> str:
    # uvicorn has already replaced the peer with X-Forwarded-For when (and only when) the
    # peer is a trusted proxy (SUPALITE_FORWARDED_ALLOW_IPS), so a client cannot spoof it.
    return request.client.host if request.client else ""


def client_inet(request: Request) -> str | None:
    """The client's address as a PostgreSQL inet (normalized, without an IPv6 zone, which inet
    cannot hold), or None when the client's host is no IP address."""
    try:
        address = ipaddress.ip_address(client_ip(request))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.scope_id:
        address = ipaddress.IPv6Address(address.packed)
    return str(address)


def path_uuid(request: Request, name: str) -> uuid.UUID:
    """The path parameter `name` as a UUID; else GoTrue's 404 validation_failed
    "<name> must be an UUID"."""
    try:
        return uuid.UUID(request.path_params[name])
    except ValueError:
        raise not_found(codes.VALIDATION_FAILED, f"{name} must be an UUID") from None
