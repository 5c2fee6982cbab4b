"""Names of buckets and objects: what is accepted, and the backend key they map to.

Object names are relative '/'-separated paths: no empty, '.' or '..' segment, no leading
'/', no NUL or control character, at most 1024 bytes and 255 bytes per segment (a file
name on the local backend). Together with the file backend's own root check, a name can
never reach outside its bucket.
"""

from __future__ import annotations

import re

from server.storage import errors

MAX_NAME_BYTES = 1024
MAX_SEGMENT_BYTES = 255
_BUCKET_RE = re.compile(r"[A-Za-z0-9_\-.!*'() &$@=;:+,?]{1,100}")
_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f]")


def validate_bucket_name(name: object) -> str:
    if not isinstance(name, str) or not _BUCKET_RE.fullmatch(name) or name in (".", "..") or name.strip() != name:
        raise errors.invalid_bucket_name(str(name))
    return name


def is_valid_object_name(name: str) -> bool:
    if not name or len(name.encode()) > MAX_NAME_BYTES or _CONTROL_RE.search(name):
        return False
    if name.startswith("/") or "\\" in name:
        return False
    return all(not (segment in ("", ".", "..") or len(segment.encode()) > MAX_SEGMENT_BYTES) for segment in name.split("/"))


def validate_object_name(name: object) -> str:
    if not isinstance(name, str) or not is_valid_object_name(name):
        raise errors.invalid_key(str(name))
    return name


def backend_key(bucket_id: str, name: str, version: str) -> str:
    """Where an object's bytes live: one key per version, so a replacement never clobbers
    the bytes a committed row still points to."""
    return f"{bucket_id}/{name}/{version}"
