"""GoTrue's error responses.

With `X-Supabase-Api-Version: 2024-01-01` (auth-js always sends it) an error is
`{"code": "<error_code>", "message": ...}` and the version header is echoed; without it, the
legacy `{"code": <status>, "error_code": ..., "msg": ...}`. `x-sb-error-code` is always set.
Codes are GoTrue's (internal/api/apierrors/errorcode.go).
"""

from __future__ import annotations

from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes

API_VERSION_HEADER = "X-Supabase-Api-Version"
API_VERSION_2024_01_01 = "2024-01-01"


class AuthError(Exception):
    """An error answered as GoTrue answers it."""

    def __init__(self, status: int, code: str, message: str, extra: dict[str, Any] | None = None,
                 oauth: str | None = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.extra = extra or {}
        # Some OAuth endpoints answer `{"error", "error_description"}` instead (GoTrue's OAuthError).
        self.oauth = oauth
        self.headers = headers or {}


def bad_request(code: str, message: str) -> AuthError:
    return AuthError(400, code, message)


def unprocessable(code: str, message: str) -> AuthError:
    return AuthError(422, code, message)


def forbidden(code: str, message: str) -> AuthError:
    return AuthError(403, code, message)


def not_found(code: str, message: str) -> AuthError:
    return AuthError(404, code, message)


def too_many_requests(code: str, message: str) -> AuthError:
    return AuthError(429, code, message)


def internal(message: str) -> AuthError:
    return AuthError(500, codes.UNEXPECTED_FAILURE, message)


def weak_password(message: str, reasons: list[str]) -> AuthError:
    return AuthError(422, codes.WEAK_PASSWORD, message, {"weak_password": {"reasons": reasons}})


def go_quote(text: str) -> str:
    """Go's strconv.Quote (%q), as GoTrue's messages show a value the caller sent."""
    named = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
    out = []
    for c in text:
        if c in named:
            out.append(named[c])
        elif c.isprintable():
            out.append(c)
        elif ord(c) < 0x80:
            out.append(f"\\x{ord(c):02x}")
        else:
            out.append(f"\\u{ord(c):04x}" if ord(c) <= 0xFFFF else f"\\U{ord(c):08x}")
    return '"' + "".join(out) + '"'


def api_version(request: Request) -> str | None:
    """The API version the client asked for, when it is a known one (a date >= 2024-01-01)."""
    value = request.headers.get(API_VERSION_HEADER, "").strip()
    if len(value) == 10 and value[4] == "-" and value[7] == "-" and value.replace("-", "").isdigit():
        return API_VERSION_2024_01_01 if value >= API_VERSION_2024_01_01 else None
    return None


def error_response(request: Request, err: AuthError) -> Response:
    version = api_version(request)
    headers = {**err.headers, "x-sb-error-code": err.code}
    if err.oauth:
        headers.pop("x-sb-error-code")
        body_oauth = {"error": err.oauth, "error_description": err.message}
        return Response(orjson.dumps(body_oauth), status_code=err.status, headers=headers,
                        media_type="application/json")
    if version:
        headers[API_VERSION_HEADER] = version
        body: dict[str, Any] = {"code": err.code, "message": err.message}
    else:
        body = {"code": err.status, "error_code": err.code, "msg": err.message}
    body.update(err.extra)
    return Response(orjson.dumps(body), status_code=err.status, headers=headers, media_type="application/json")
