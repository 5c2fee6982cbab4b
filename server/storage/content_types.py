"""Media types of stored objects: parsed strictly on upload, matched against a bucket's
`allowed_mime_types`, and served back so stored bytes never run as active content on the
API's origin.

A Content-Type is one `type/subtype` with optional `; name=value` parameters (RFC 9110
8.3); anything else (a comma-separated list, stray characters) is refused rather than
guessed at, so the type a bucket rule checked is the one every browser sees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from server.storage import errors

MAX_LENGTH = 1024  # far above any real media type with its parameters
DEFAULT = "application/octet-stream"

_TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
_QUOTED = r'"(?:[^"\\\x00-\x08\x0a-\x1f\x7f]|\\[\x09\x20-\x7e])*"'
_PARAM = rf"[ \t]*;[ \t]*(?:{_TOKEN}=(?:{_TOKEN}|{_QUOTED}))?"
_MEDIA_TYPE = re.compile(rf"[ \t]*({_TOKEN})/({_TOKEN})((?:{_PARAM})*)[ \t]*")
MAX_ALLOWED_LENGTH = 1000  # storage-api's bound on one allowed_mime_types entry


@dataclass(frozen=True)
class MediaType:
    essence: str  # lowercase `type/subtype`
    params: str  # `; a=b` parameters as sent, normalised spacing

    def __str__(self) -> str:
        return self.essence + self.params


def parse(value: str | None) -> MediaType | None:
    """The media type of a header value, or None when it is not exactly one media type."""
    if value is None or len(value) > MAX_LENGTH:
        return None
    match = _MEDIA_TYPE.fullmatch(value)
    if match is None:
        return None
    params = "".join(f"; {p.strip()}" for p in match.group(3).split(";") if p.strip())
    return MediaType(f"{match.group(1)}/{match.group(2)}".lower(), params)


def require(value: str | None) -> MediaType:
    """The uploaded object's media type: none given is octet-stream, a malformed one is refused."""
    if value is None or not value.strip():
        return MediaType(DEFAULT, "")
    parsed = parse(value)
    if parsed is None:
        raise errors.invalid_mime_type(value[:100])
    return parsed


def normalize_allowed(patterns: list[str]) -> list[str]:
    """A bucket's allowed_mime_types as storage-api stores them: each entry one media type
    (`type/subtype` or the wildcard `type/*`, parameters allowed and dropped), lower-cased,
    duplicates removed in order; empty entries are skipped. Anything else (`*/*`, `*/png`,
    `image/p*`, `garbage*`, lists, extra slashes) is refused with InvalidMimeType."""
    normalized: list[str] = []
    for pattern in patterns:
        if not pattern:
            continue
        media = parse(pattern.strip()) if len(pattern) <= MAX_ALLOWED_LENGTH else None
        kind, _, sub = media.essence.partition("/") if media else ("", "", "")
        if media is None or "*" in kind or ("*" in sub and sub != "*"):
            raise errors.invalid_mime_type(pattern[:100])
        if media.essence not in normalized:
            normalized.append(media.essence)
    return normalized


def allowed(media: MediaType, patterns: list[str] | None) -> bool:
    """Whether `media` matches one of a bucket's patterns, `type/subtype` or `type/*`
    (case-insensitive; parameters of a pattern are ignored). No pattern: anything."""
    if not patterns:
        return True
    kind, _, sub = media.essence.partition("/")
    for pattern in patterns:
        wanted = pattern.split(";", 1)[0].strip().lower()
        wanted_kind, _, wanted_sub = wanted.partition("/")
        if wanted_kind == kind and wanted_sub in ("*", sub):
            return True
    return False


# Types a browser shows without running anything of the page's origin: everything else
# (html, xhtml, svg, xml, javascript, unknown types...) is only ever downloaded.
_INLINE_KINDS = ("image/", "audio/", "video/", "font/")
_INLINE_TYPES = {"application/pdf", "application/json", "application/octet-stream", "text/plain", "text/csv"}


def is_inline_safe(essence: str) -> bool:
    if essence.endswith(("+xml", "/xml")):
        return False
    return essence in _INLINE_TYPES or essence.startswith(_INLINE_KINDS)


def served(stored: str | None) -> tuple[str, bool]:
    """(Content-Type to send, whether it may be shown inline) for an object's stored type.

    HTML goes out as text/plain, as storage-api does; a stored value that does not parse
    (written before types were checked) as octet-stream."""
    media = parse(stored) if stored else None
    if media is None:
        return DEFAULT, True
    if media.essence in ("text/html", "application/xhtml+xml"):
        return "text/plain" + media.params, True
    return str(media), is_inline_safe(media.essence)
