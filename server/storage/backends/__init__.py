"""Object byte stores behind one interface: local files (default) or S3 / MinIO."""

from __future__ import annotations

from server.core.config import Settings
from server.storage.backends.base import (
    Backend,
    BackendMissing,
    KeyConflict,
    ObjectHead,
    OnDurable,
    PartState,
    TooLarge,
)
from server.storage.backends.file import FileBackend


def make_backend(settings: Settings) -> Backend:
    if settings.storage_backend == "s3":
        from server.storage.backends.s3 import S3Backend, make_client

        client = make_client(settings.storage_s3_endpoint, settings.storage_s3_access_key,
                             settings.storage_s3_secret_key, settings.storage_s3_region)
        return S3Backend(client, settings.storage_s3_bucket, settings.tus_part_size * 1024 * 1024)
    return FileBackend(settings.data_dir / "storage", settings.storage_file_etag_algorithm)


__all__ = ["Backend", "BackendMissing", "FileBackend", "KeyConflict", "ObjectHead", "OnDurable", "PartState", "TooLarge",
           "make_backend"]
