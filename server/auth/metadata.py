"""Bounds on user_metadata and app_metadata.

Both objects are copied into every access token, and a token travels in a request header
(the server refuses heads over 64 KiB, and proxies such as Cloudflare or nginx refuse less).
GoTrue sets no bound, so a client could store megabytes there and mint tokens nobody can
send. Each object is bounded here as the token carries it (compact JSON, non-ASCII
characters \\u-escaped), so that a token with both objects at their bound stays under the
token size bound of server/core/jwt.py, and bounded in nesting depth.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from server.auth import error_codes as codes
from server.auth.errors import AuthError, bad_request

MAX_METADATA_BYTES = 8 * 1024
MAX_METADATA_DEPTH = 16


def token_size(value: dict[str, Any]) -> int:
    """Bytes `value` takes in an access token's JSON (PyJWT writes compact, ASCII-escaped JSON)."""
    return len(json.dumps(value, separators=(",", ":")))


def depth(value: Any) -> int:
    """Nesting depth of objects and arrays (a flat object is 1), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, level)
        if level > MAX_METADATA_DEPTH:
            break  # deep enough to refuse: no need to walk the rest
        stack.extend((child, level + 1) for child in children)
    return deepest


def _error(name: str, message: str) -> AuthError:
    return bad_request(codes.VALIDATION_FAILED, f"{name} {message}")


def check(name: str, value: dict[str, Any] | None) -> None:
    """Refuse a metadata object (as sent by a client) over the size or depth bound."""
    if value is None:
        return
    # orjson's UTF-8 size never exceeds the escaped size: a cheap first refusal of huge values.
    if len(orjson.dumps(value)) > MAX_METADATA_BYTES or token_size(value) > MAX_METADATA_BYTES:
        raise _error(name, f"is too large: at most {MAX_METADATA_BYTES} bytes of JSON")
    if depth(value) > MAX_METADATA_DEPTH:
        raise _error(name, f"is nested too deeply: at most {MAX_METADATA_DEPTH} levels")


def check_merged(name: str, current: dict[str, Any] | None, merged: dict[str, Any]) -> None:
    """Refuse an update whose result is over the bound, unless it makes the object no larger
    (a user above the bound, e.g. through SQL, may still remove keys)."""
    size = token_size(merged)
    if size > MAX_METADATA_BYTES and size > token_size(current or {}):
        raise _error(name, f"is too large: at most {MAX_METADATA_BYTES} bytes of JSON")
