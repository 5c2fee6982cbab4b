"""Bucket declarations in `storage/buckets.toml`, applied by `supalite migrate`.

    [buckets.books]
    public = false
    file_size_limit = "50MiB"
    allowed_mime_types = ["application/pdf", "image/jpeg"]
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from server.config import ConfigError

_UNITS = {"": 1, "b": 1, "kb": 1000, "mb": 1000**2, "gb": 1000**3, "kib": 1024, "mib": 1024**2, "gib": 1024**3}


def parse_size(value: int | str | None) -> int | None:
    """`52428800`, `"50MiB"`, `"10 MB"` -> bytes; None stays None."""
    if value is None or isinstance(value, int):
        return value
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", value)
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"not a size: {value!r}")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def load_bucket_declarations(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    try:
        data = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    declarations = []
    for bucket_id, spec in data.get("buckets", {}).items():
        try:
            declarations.append({
                "id": bucket_id,
                "public": bool(spec.get("public", False)),
                "file_size_limit": parse_size(spec.get("file_size_limit")),
                "allowed_mime_types": spec.get("allowed_mime_types"),
            })
        except ValueError as exc:
            raise ConfigError(f"{path} bucket {bucket_id}: {exc}") from None
    return declarations
