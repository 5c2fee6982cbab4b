"""Bucket declarations in `storage/buckets.toml`, applied by `supalite migrate`.

    [buckets.books]
    public = false
    file_size_limit = "50MiB"
    allowed_mime_types = ["application/pdf", "image/jpeg"]
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from server.core.config import ConfigError, parse_size


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
