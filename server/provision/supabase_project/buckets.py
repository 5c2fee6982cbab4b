"""`[storage.buckets.<name>]`: buckets upserted, then their `objects_path` files uploaded,
as the Supabase CLI's `seed buckets` does on a first start and on `db reset`.

Buckets are rows (public, file_size_limit, allowed_mime_types as storage-api stores them).
Objects go through the storage service in-process, as the service role with upsert (the
Seeder's way, server/provision/seeding.py), so their bytes land in the configured backend and their
`storage.objects` rows exist. Keys are as the CLI makes them: the path under objects_path
(a single file: its name); symbolic links and other non-regular files are skipped.
"""

from __future__ import annotations

import asyncio
import mimetypes
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg

from server.core.config import ConfigError, Settings
from server.provision.migrate import apply_buckets
from server.provision.seeding import PendingObject, upload_objects
from server.provision.supabase_project.config_toml import BucketConfig
from server.provision.supabase_project.layout import SupabaseProject
from server.provision.supabase_project.migrations import say
from server.storage import content_types
from server.storage.errors import StorageError

UPLOAD_BATCH_BYTES = 64 * 1024 * 1024  # files read into memory per in-process upload round
_COMPRESSED = {"gzip": "application/gzip", "bzip2": "application/x-bzip2", "xz": "application/x-xz",
               "br": "application/x-brotli", "compress": "application/x-compress"}


def bucket_row(bucket: BucketConfig) -> dict[str, object]:
    try:
        allowed = content_types.normalize_allowed(bucket.allowed_mime_types) if bucket.allowed_mime_types else None
    except StorageError as exc:
        raise ConfigError(f"storage.buckets.{bucket.name}.allowed_mime_types: {exc}") from None
    return {"id": bucket.name, "public": bucket.public, "file_size_limit": bucket.file_size_limit,
            "allowed_mime_types": allowed or None}


def upsert_buckets(conn: psycopg.Connection, buckets: list[BucketConfig], *, verbose: bool) -> None:
    """Create or update each declared bucket's properties (the CLI's UpsertBuckets)."""
    if not buckets:
        return
    existing = {bucket_id for (bucket_id,) in conn.execute("select id from storage.buckets")}
    if verbose:
        for bucket in buckets:
            say(f"{'Updating' if bucket.name in existing else 'Creating'} Storage bucket: {bucket.name}")
    apply_buckets(conn, [bucket_row(b) for b in buckets])


def content_type(path: Path, head: bytes) -> str:
    """By the file's extension; else text or octet-stream from its first bytes."""
    guessed, encoding = mimetypes.guess_type(path.name, strict=False)
    if encoding:
        return _COMPRESSED.get(encoding, content_types.DEFAULT)
    if guessed:
        return guessed
    if b"\0" not in head:
        try:
            head.decode("utf-8")
            return "text/plain; charset=utf-8"
        except UnicodeDecodeError:
            pass
    return content_types.DEFAULT


def bucket_files(project: SupabaseProject, bucket: BucketConfig) -> Iterator[tuple[Path, str]]:
    """(file, key) for each regular file under objects_path, in name order."""
    root = bucket.objects_path
    if root is None:
        return
    if root.is_symlink() or not root.exists():
        raise ConfigError(f"storage.buckets.{bucket.name}.objects_path: {project.relative(root)} does not exist")
    if root.is_file():
        yield root, root.name
        return
    for folder, dirs, files in os.walk(root):  # symlinked folders are not followed
        dirs.sort()
        for name in sorted(files):
            path = Path(folder) / name
            if path.is_symlink() or not path.is_file():
                continue
            yield path, path.relative_to(root).as_posix()


def upload_bucket_objects(settings: Settings, owner_url: str, project: SupabaseProject,
                          buckets: list[BucketConfig]) -> int:
    """Upload every objects_path file (upsert); the number uploaded."""
    target = settings.with_overrides(database_url=owner_url)
    batch: list[PendingObject] = []
    size = count = 0
    for bucket in buckets:
        # Storage's own limit (the service's upload_limit): a file over it is refused before it is read.
        limit = min(settings.file_size_limit, bucket.file_size_limit or settings.file_size_limit)
        for path, key in bucket_files(project, bucket):
            say(f"Uploading: {project.relative(path)} => {bucket.name}/{key}")
            try:
                if path.stat().st_size > limit:
                    raise ConfigError(f"{project.relative(path)}: larger than storage.buckets.{bucket.name}'s "
                                      f"file_size_limit ({limit} bytes), storage refuses it")
                data = path.read_bytes()
            except OSError as exc:
                raise ConfigError(f"cannot read {project.relative(path)}: {exc.strerror}") from None
            batch.append(PendingObject(bucket.name, key, data, content_type(path, data[:512])))
            size += len(data)
            count += 1
            if size >= UPLOAD_BATCH_BYTES:
                asyncio.run(upload_objects(target, batch))
                batch, size = [], 0
    if batch:
        asyncio.run(upload_objects(target, batch))
    return count
