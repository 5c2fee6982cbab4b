"""Password hashing as GoTrue does it: bcrypt, cost 10, `$2a$`-compatible hashes.

Hashing and checking run in a worker thread (bcrypt releases the GIL), never on the event loop.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import bcrypt
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, bad_request, unprocessable, weak_password
from server.core.config import Settings

if TYPE_CHECKING:
    from server.auth.ratelimit import RateLimiter

COST = 10
MIN_LENGTH = 6  # GoTrue's floor, whatever the setting
MAX_BYTES = 72  # bcrypt ignores what lies beyond


def _hash(password: str) -> str:
    return bcrypt.hashpw(password.encode(), bcrypt.gensalt(COST)).decode()


def _check(password: str, hashed: str) -> bool:
    try:
        return bcrypt.checkpw(password.encode(), hashed.encode())
    except ValueError:  # not a bcrypt hash (e.g. a user without a password)
        return False


async def hash_password(password: str) -> str:
    return await anyio.to_thread.run_sync(_hash, password)


async def verify_password(password: str, hashed: str | None) -> bool:
    if not hashed:
        return False
    return await anyio.to_thread.run_sync(_check, password, hashed)


async def require_own_password(limiter: RateLimiter, request: Request, login: str, hashed: str | None,
                               password: str) -> None:
    """With autoconfirm, a sign-up over an unconfirmed account (a pending invite, an account an
    admin created, an earlier unconfirmed sign-up) opens it only with that account's password;
    else 422 user_already_exists. GoTrue confirms it and hands a session, with the account's
    metadata, to whoever asks. The check counts as a password sign-in for the account
    (server/auth/ratelimit.py), so sign-up is no way around that limit either."""
    client = limiter.account_client(request)
    await limiter.account_attempt(login, client)
    if not await verify_password(password, hashed):
        raise unprocessable(codes.USER_ALREADY_EXISTS, "User already registered")
    await limiter.account_succeeded(login, client)


def check_strength(settings: Settings, password: str) -> None:
    """GoTrue's checkPasswordStrength: at most 72 bytes (400), else a 422 weak_password naming
    every rule broken: `length` (GOTRUE_PASSWORD_MIN_LENGTH, counted in bytes as Go's len()
    does) and `characters` (each set of GOTRUE_PASSWORD_REQUIRED_CHARACTERS must give one)."""
    size = len(password.encode())
    if size > MAX_BYTES:
        raise bad_request(codes.VALIDATION_FAILED, f"Password cannot be longer than {MAX_BYTES} characters")
    reasons: list[str] = []
    messages: list[str] = []
    min_length = max(settings.password_min_length, MIN_LENGTH)
    if size < min_length:
        reasons.append("length")
        messages.append(f"Password should be at least {min_length} characters.")
    required = settings.password_required_characters
    if any(chars and not any(c in password for c in chars) for chars in required):
        reasons.append("characters")
        messages.append(f"Password should contain at least one character of each: {', '.join(required)}.")
    if reasons:
        raise weak_password(" ".join(messages), reasons)


def strength_error(settings: Settings, password: str) -> AuthError | None:
    try:
        check_strength(settings, password)
    except AuthError as err:
        return err
    return None
