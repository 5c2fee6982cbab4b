"""HTTP for stored bytes: ETag / Last-Modified / Cache-Control from the object's row,
`If-None-Match` and `If-Modified-Since` -> 304, single `Range` -> 206 (one past the end is
S3's InvalidRange error, as storage-api passes it on), `download` -> attachment, HEAD
without a body.

Stored bytes are someone's upload served from the API's origin: every answer carries
`nosniff`, and a type a browser would run (html is already sent as text/plain; svg, xml,
javascript, unknown types) goes out as an attachment in a CSP sandbox, so opening its
URL never runs it. Downloads through fetch (supabase-js) and images in `<img>` are not
affected by either header."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime
from email.utils import format_datetime, parsedate_to_datetime
from typing import Any
from urllib.parse import quote

from starlette.responses import Response, StreamingResponse

from server.storage import content_types, errors
from server.storage.backends import Backend, BackendMissing

_RANGE_RE = re.compile(r"bytes=(\d*)-(\d*)", re.IGNORECASE)  # the unit is case-insensitive (RFC 9110)
_HTTP_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_NOT_FALLBACK = re.compile(r'[^\x20-\x7e]|["\\]')
_MAX_DIGITS = 18  # any position with more digits is past the end of any object
SANDBOX = "sandbox; default-src 'none'"


def http_date(moment: datetime) -> str:
    return format_datetime(moment.astimezone(UTC), usegmt=True)


def parse_range(header: str | None, size: int) -> tuple[int, int] | str | None:
    """(start, end) inclusive; None to serve everything; "unsatisfiable"."""
    if not header:
        return None
    match = _RANGE_RE.fullmatch(header.strip())
    if not match or (not match.group(1) and not match.group(2)):
        return None  # multi-range or malformed: a full 200 is a valid answer
    first, last = _position(match.group(1)), _position(match.group(2))
    if first is None:
        if last == 0 or size == 0:
            return "unsatisfiable"
        return max(0, size - (last or 0)), size - 1
    end = size - 1 if last is None else min(last, size - 1)
    if first >= size or (last is not None and last < first):
        return "unsatisfiable"
    return first, end


def _position(digits: str) -> int | None:
    """A byte position of a Range header; absurdly long ones are capped (never parsed whole)."""
    if not digits:
        return None
    digits = digits.lstrip("0") or "0"
    return int(digits) if len(digits) <= _MAX_DIGITS else 10**_MAX_DIGITS


def _not_modified(headers: Mapping[str, str], etag: str, modified: datetime) -> bool:
    if_none_match = headers.get("if-none-match")
    if if_none_match is not None:
        tags = [t.strip().removeprefix("W/") for t in if_none_match.split(",")]
        return "*" in tags or etag in tags
    since = headers.get("if-modified-since")
    if since:
        try:
            return modified.replace(microsecond=0) <= parsedate_to_datetime(since)
        except (TypeError, ValueError):
            return False
    return False


def content_disposition(download: str | None) -> dict[str, str]:
    """storage-api's `?download` answer: a bare `attachment;` without a name; with one, an
    ASCII `filename` fallback (not percent-encoded; quoted unless a token) and the RFC 8187
    `filename*` (percent-encoded UTF-8, `'()*` included)."""
    if download is None:
        return {}
    if download == "":
        return {"Content-Disposition": "attachment;"}
    fallback = _NOT_FALLBACK.sub("_", download)
    if not _HTTP_TOKEN.fullmatch(fallback):
        fallback = f'"{fallback}"'
    encoded = quote(download, safe="-_.!~", errors="replace")
    return {"Content-Disposition": f"attachment; filename={fallback}; filename*=UTF-8''{encoded}"}


def content_headers(mime: str | None, download: str | None) -> dict[str, str]:
    """Content-Type, nosniff and, for a type a browser would run, attachment + sandbox."""
    served, inline = content_types.served(mime)
    headers = {"Content-Type": served, "X-Content-Type-Options": "nosniff", "X-Robots-Tag": "none"}
    if not inline:
        headers["Content-Security-Policy"] = SANDBOX
        headers["Content-Disposition"] = "attachment"
    headers.update(content_disposition(download))
    return headers


def expires_header(timestamp: int) -> str:
    """An HTTP date for a token's expiry, capped at the last one HTTP dates can express."""
    try:
        return http_date(datetime.fromtimestamp(timestamp, tz=UTC))
    except (OverflowError, OSError, ValueError):
        return "Fri, 31 Dec 9999 23:59:59 GMT"


async def _primed(stream: AsyncIterator[bytes | memoryview]) -> AsyncIterator[bytes | memoryview]:
    """Read the first chunk before the status line goes out, so a missing file is a
    clean error instead of a truncated 200."""
    try:
        first = await stream.__anext__()
    except StopAsyncIteration:
        first = b""
    except BackendMissing:
        raise errors.no_such_key() from None

    async def rest() -> AsyncIterator[bytes | memoryview]:
        if first:
            yield first
        async for chunk in stream:
            yield chunk

    return rest()


async def object_response(backend: Backend, key: str, row: Mapping[str, Any], request_headers: Mapping[str, str], *,
                          head: bool = False, download: str | None = None, expires: str | None = None) -> Response:
    metadata = row.get("metadata") or {}
    size = int(metadata.get("size") or metadata.get("contentLength") or 0)
    etag = metadata.get("eTag") or ""
    modified: datetime = row.get("updated_at") or datetime.now(UTC)
    headers = {
        "Accept-Ranges": "bytes",
        "ETag": etag,
        "Last-Modified": http_date(modified),
        "Cache-Control": metadata.get("cacheControl") or "no-cache",
    }
    if expires:
        headers["Expires"] = expires
    if _not_modified(request_headers, etag, modified):
        return Response(status_code=304, headers=headers)
    headers.update(content_headers(metadata.get("mimetype"), download))
    wanted = parse_range(request_headers.get("range"), size)
    if_range = request_headers.get("if-range")
    if if_range and if_range != etag:
        wanted = None
    if wanted == "unsatisfiable":
        raise errors.range_not_satisfiable()
    status, start, end = 200, 0, size - 1
    if isinstance(wanted, tuple):
        status, (start, end) = 206, wanted
        headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    headers["Content-Length"] = str(max(0, end - start + 1))
    if head:
        return Response(status_code=status, headers=headers)
    if size == 0:
        return Response(b"", status_code=status, headers=headers)
    body = await _primed(backend.stream(key, start, end).__aiter__())
    return StreamingResponse(body, status_code=status, headers=headers)
