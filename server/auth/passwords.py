"""Password hashing as GoTrue does it: bcrypt, cost 10, `$2a$`-compatible hashes.

Hashing and checking run in a worker thread (bcrypt releases the GIL), never on the event loop.
"""

from __future__ import annotations

import anyio
import bcrypt

from server.auth import error_codes as codes
from server.auth.errors import AuthError, bad_request, weak_password

COST = 10
MIN_LENGTH = 6
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


def check_strength(password: str) -> None:
    """GoTrue's checkPasswordStrength with the default settings (6 characters minimum)."""
    if len(password.encode()) > MAX_BYTES:
        raise bad_request(codes.VALIDATION_FAILED, f"Password cannot be longer than {MAX_BYTES} characters")
    if len(password) < MIN_LENGTH:
        raise weak_password(f"Password should be at least {MIN_LENGTH} characters.", ["length"])


def strength_error(password: str) -> AuthError | None:
    try:
        check_strength(password)
    except AuthError as err:
        return err
    return None
