"""What every /auth/v1 endpoint module shares."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth.errors import bad_request
from server.auth.ratelimit import RateLimiter
from server.core.caller import Caller
from server.core.context import AppContext

# checkmail's format check, which GoTrue uses. Matched with fullmatch: Go's `$` ends the text,
# Python's `$` would also accept a trailing newline ("user@example.com\n").
_EMAIL = re.compile(
    r"[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?"
    r"(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*")


@dataclass
class AuthService:
    ctx: AppContext
    limiter: RateLimiter


# A route's handler (server/auth/routes.py); a USER route's handler also gets the verified caller.
Handler = Callable[[AuthService, Request], Awaitable[Response]]
UserHandler = Callable[[AuthService, Request, Caller], Awaitable[Response]]


def validate_email(email: str) -> str:
    """GoTrue's validateEmail: required, at most 255 characters, well formed; lower-cased."""
    if not email:
        raise bad_request(codes.VALIDATION_FAILED, "An email address is required")
    if len(email) > 255:
        raise bad_request(codes.VALIDATION_FAILED, "An email address is too long")
    if not _EMAIL.fullmatch(email):
        raise bad_request(codes.VALIDATION_FAILED, "Unable to validate email address: invalid format")
    return email.lower()
