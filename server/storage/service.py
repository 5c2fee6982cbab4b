"""The storage domain: buckets and objects over one backend and Postgres.

Every decision about who may do what is a statement run under the caller's role
(`request_transaction`), so RLS policies on storage.objects / storage.buckets decide.
Bytes are written before their row and removed again when the row cannot be written;
a replaced version's bytes are removed only after the new row is committed.
"""

from __future__ import annotations

import base64
import re
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from typing import Any

import anyio
import psycopg
from psycopg import AsyncConnection
from psycopg import errors as pg_errors

from server.core.context import AppContext
from server.core.request_context import RequestContext, request_transaction
from server.storage import content_types, db, errors, signing
from server.storage.backends import Backend, BackendMissing, KeyConflict, ObjectHead, TooLarge
from server.storage.paths import backend_key, validate_bucket_name, validate_object_name
from server.storage.transforms import Transform
from server.storage.uploads import UploadBody

SUPERUSER = RequestContext(role="service_role", claims={"role": "service_role"})
Write = Callable[..., Awaitable[str | None]]
OpenBody = Callable[[], Awaitable[UploadBody]]


def object_metadata(size: int, etag: str, mimetype: str, cache_control: str, modified: datetime) -> dict[str, Any]:
    """The `metadata` column, with storage-api's keys."""
    return {"eTag": etag, "size": size, "mimetype": mimetype, "cacheControl": cache_control,
            "lastModified": modified.astimezone(UTC).isoformat().replace("+00:00", "Z"),
            "contentLength": size, "httpStatusCode": 200}


class StorageService:
    def __init__(self, ctx: AppContext, backend: Backend) -> None:
        self.ctx = ctx
        self.backend = backend

    # -- plumbing ----------------------------------------------------------------------

    @asynccontextmanager
    async def transaction(self, caller: RequestContext) -> AsyncIterator[AsyncConnection]:
        try:
            async with request_transaction(self.ctx.api_pool, caller) as conn:
                yield conn
        except psycopg.Error as exc:
            raise errors.from_database(exc) from None

    async def dry_run(self, caller: RequestContext, action: Callable[[AsyncConnection], Awaitable[Any]]) -> None:
        """Run `action` under the caller's role and roll it back: a permission check that
        fails before any byte is streamed."""
        async with self.transaction(caller) as conn:
            await action(conn)
            raise psycopg.Rollback()

    async def discard(self, key: str) -> None:
        with anyio.CancelScope(shield=True):
            try:
                await self.backend.delete(key)
            except Exception:  # best effort: the row is the source of truth
                pass

    async def bucket_config(self, bucket_id: str) -> dict[str, Any]:
        async with self.transaction(SUPERUSER) as conn:
            row = await db.bucket(conn, bucket_id)
        if row is None:
            raise errors.no_such_bucket()
        return row

    def upload_limit(self, bucket: dict[str, Any]) -> int:
        limit = self.ctx.settings.file_size_limit
        if bucket.get("file_size_limit"):
            limit = min(limit, int(bucket["file_size_limit"]))
        return limit

    # -- buckets -----------------------------------------------------------------------

    async def list_buckets(self, caller: RequestContext, limit: int | None, offset: int, search: str,
                           column: str, order: str, with_type: bool = True) -> bytes:
        async with self.transaction(caller) as conn:
            return await db.list_buckets(conn, limit, offset, search, column, order, with_type)

    async def get_bucket(self, caller: RequestContext, bucket_id: str) -> bytes:
        """The bucket's JSON as GET /bucket/{id} sends it."""
        async with self.transaction(caller) as conn:
            found = await db.bucket_json(conn, bucket_id)
        if found is None:
            raise errors.no_such_bucket()
        return found

    async def create_bucket(self, caller: RequestContext, values: db.NewBucket) -> str:
        validate_bucket_name(values["id"])
        try:
            async with self.transaction(caller) as conn:
                await db.insert_bucket(conn, values, caller.claims.get("sub"))
        except errors.StorageError as exc:
            if exc.code == "ResourceAlreadyExists":
                raise errors.bucket_already_exists() from None
            raise
        return values["name"]

    async def update_bucket(self, caller: RequestContext, bucket_id: str, changes: db.BucketOptions) -> None:
        async with self.transaction(caller) as conn:
            if not await db.update_bucket(conn, bucket_id, changes):
                raise errors.no_such_bucket()

    async def delete_bucket(self, caller: RequestContext, bucket_id: str) -> None:
        """The caller's policies decide first (a bucket they may not delete is "not found");
        only then does the objects' foreign key tell a non-empty bucket."""
        async with self.transaction(caller) as conn:
            try:
                deleted = await db.delete_bucket(conn, bucket_id)
            except pg_errors.ForeignKeyViolation:
                raise errors.bucket_not_empty() from None
            if not deleted:
                raise errors.no_such_bucket()

    async def empty_bucket(self, caller: RequestContext, bucket_id: str) -> None:
        async with self.transaction(caller) as conn:
            if await db.bucket(conn, bucket_id) is None:
                raise errors.no_such_bucket()
            removed = await db.delete_all_objects(conn, bucket_id)
        for row in removed:
            await self.discard(backend_key(bucket_id, row["name"], row["version"] or ""))

    # -- uploads -----------------------------------------------------------------------

    async def upload(self, caller: RequestContext, bucket_id: str, name: str, open_body: OpenBody,
                     declared_size: int | None, *, upsert: bool = False, update: bool = False,
                     owner: str | None = None) -> tuple[str, str]:
        """Store an object: (id, "<bucket>/<name>"). The caller's policies, then the bucket's
        size limit against the declared size, are checked before the body is opened; its
        bytes are counted against the limit as they stream."""
        validate_object_name(name)
        owner = owner if owner is not None else caller.claims.get("sub")
        await self.check_write(caller, bucket_id, name, owner, upsert=upsert, update=update)
        bucket = await self.bucket_config(bucket_id)
        limit = self.upload_limit(bucket)
        if declared_size is not None and declared_size > limit:
            raise errors.entity_too_large()
        body = await open_body()
        if not content_types.allowed(body.media_type, bucket.get("allowed_mime_types")):
            raise errors.invalid_mime_type(body.media_type.essence)
        version = str(uuid.uuid4())
        try:
            head = await self.backend.put(backend_key(bucket_id, name, version), body.chunks, body.content_type, limit)
        except TooLarge:
            raise errors.entity_too_large() from None
        except KeyConflict:
            raise errors.invalid_key(name) from None
        # No metadata given is an empty object, as storage-api stores it (info shows `{}`).
        object_id, _ = await self.commit_object(caller, bucket_id, name, owner, version, head, body.content_type,
                                                body.cache_control, body.user_metadata or {}, upsert=upsert,
                                                update=update)
        return object_id, f"{bucket_id}/{name}"

    async def check_write(self, caller: RequestContext, bucket_id: str, name: str, owner: str | None, *,
                          upsert: bool = False, update: bool = False) -> None:
        """Whether the caller may write this row (insert, upsert or update), tried and
        rolled back: the permission check that runs before any byte is read or copied.
        Policies are checked before the bucket's foreign key, so a bucket is "not found"
        only to those allowed to write."""
        write = _write(upsert, update)

        async def probe(conn: AsyncConnection) -> None:
            try:
                written = await write(conn, bucket_id, name, owner, "probe", {}, None)
            except pg_errors.ForeignKeyViolation:
                raise errors.no_such_bucket() from None
            if written is None:
                raise errors.no_such_key()

        await self.dry_run(caller, probe)

    async def commit_object(self, caller: RequestContext, bucket_id: str, name: str, owner: str | None,
                            version: str, head: ObjectHead, content_type: str, cache_control: str,
                            user_metadata: dict[str, Any] | None, *, upsert: bool = False,
                            update: bool = False) -> tuple[str, dict[str, Any]]:
        """Write, under the caller's role, the row of the bytes already stored for `version`:
        (its id, its `metadata` column). On any failure the bytes are removed; the version
        it replaces loses its bytes once the row is committed."""
        key = backend_key(bucket_id, name, version)
        metadata = object_metadata(head.size, head.etag, content_type, cache_control, head.last_modified)
        write = _write(upsert, update)
        try:
            async with self.transaction(caller) as conn:
                previous = None
                if upsert or update:
                    row = await db.find_object(conn, bucket_id, name, for_update=True)
                    previous = row["version"] if row else None
                object_id = await write(conn, bucket_id, name, owner, version, metadata, user_metadata)
                if object_id is None:
                    raise errors.no_such_key()
        except BaseException:
            await self.discard(key)
            raise
        if previous and previous != version:
            await self.discard(backend_key(bucket_id, name, previous))
        return object_id, metadata

    # -- reads -------------------------------------------------------------------------

    async def find(self, caller: RequestContext, bucket_id: str, name: str) -> dict[str, Any]:
        validate_object_name(name)
        async with self.transaction(caller) as conn:
            row = await db.find_object(conn, bucket_id, name)
            if row is None:
                if await db.bucket(conn, bucket_id) is None and caller.role == "service_role":
                    raise errors.no_such_bucket()
                raise errors.no_such_key()
        return row

    async def find_public(self, bucket_id: str, name: str) -> dict[str, Any]:
        bucket = await self.bucket_config(bucket_id)
        if not bucket["public"]:
            raise errors.no_such_bucket()
        return await self.find(SUPERUSER, bucket_id, name)

    def key_of(self, row: dict[str, Any]) -> str:
        return backend_key(row["bucket_id"], row["name"], row["version"] or "")

    async def render_image(self, row: dict[str, Any], transform: Transform, accepts_webp: bool = False) -> tuple[bytes, str]:
        from server.storage import transforms

        try:
            data = await self.backend.get(self.key_of(row), transforms.MAX_SOURCE_BYTES)
        except TooLarge:
            raise errors.StorageError("EntityTooLarge", 413, "The image exceeded the maximum size for transforms") from None
        except BackendMissing:
            raise errors.no_such_key() from None
        mime = (row.get("metadata") or {}).get("mimetype") or "application/octet-stream"
        return await anyio.to_thread.run_sync(transforms.render, data, transform, mime, accepts_webp)

    async def list_objects(self, caller: RequestContext, bucket_id: str, prefix: str, limit: int, offset: int,
                           search: str, column: str, order: str) -> bytes:
        if prefix and not prefix.endswith("/"):
            prefix += "/"
        async with self.transaction(caller) as conn:
            return await db.search(conn, bucket_id, prefix, limit, offset, search, column, order)

    async def list_objects_v2(self, caller: RequestContext, bucket_id: str, prefix: str, delimited: bool,
                              cursor_text: str | None, limit: int | None, column: str | None,
                              order: str | None) -> dict[str, Any]:
        """One page of list-v2, as storage-api's listObjectsV2: a cursor's sort settings win
        over the body's; one row more than the page tells whether another follows."""
        page = min(limit or 1000, 1000)
        cursor = decode_cursor(cursor_text) if cursor_text else {}
        start_after = cursor.get("l", "")
        order = cursor.get("o") or order
        column = cursor.get("c") or column
        after = cursor.get("a")
        descending = order == "desc"
        async with self.transaction(caller) as conn:
            if not delimited:
                date_column = column if column in ("created_at", "updated_at") else None
                rows = await db.list_v2_flat(conn, bucket_id, prefix, page + 1, date_column, descending,
                                             start_after, after)
            else:
                levels = len(prefix.split("/")) if prefix else 1
                if column in ("created_at", "updated_at"):
                    rows = await db.list_v2_by_date(conn, bucket_id, prefix, page + 1, descending, column,
                                                    start_after, after, levels)
                else:
                    rows = await db.list_v2_by_name(conn, bucket_id, prefix, page + 1, descending, start_after,
                                                    levels)
        has_next = len(rows) > page
        rows = rows[:page]
        folders = [{**_js_dates(r), "name": r["name"] if r["name"].endswith("/") else r["name"] + "/"}
                   for r in rows if r["id"] is None]
        objects = [_js_dates(r) for r in rows if r["id"] is not None]
        result: dict[str, Any] = {"hasNext": has_next}
        if has_next and rows:
            last = rows[-1]
            parts = {"l": last["name"], "o": order, "c": column}
            if column and column != "name" and last.get(column):
                parts["a"] = js_date(last[column])
            result["nextCursor"] = encode_cursor(parts)
            result["nextCursorKey"] = last["name"]
        result["folders"] = folders
        result["objects"] = objects
        return result

    # -- deletes, moves, copies --------------------------------------------------------

    async def delete(self, caller: RequestContext, bucket_id: str, name: str) -> None:
        validate_object_name(name)
        async with self.transaction(caller) as conn:
            version = await db.delete_object(conn, bucket_id, name)
        if version is None:
            raise errors.no_such_key()
        await self.discard(backend_key(bucket_id, name, version))

    async def delete_many(self, caller: RequestContext, bucket_id: str, names: list[str]) -> list[dict[str, Any]]:
        async with self.transaction(caller) as conn:
            rows = await db.delete_objects(conn, bucket_id, names)
        for row in rows:
            await self.discard(self.key_of(row))
        return rows

    async def move(self, caller: RequestContext, bucket_id: str, source: str, dest_bucket: str, dest: str) -> None:
        validate_object_name(source)
        validate_object_name(dest)
        if (bucket_id, source) == (dest_bucket, dest):
            return
        src = await self.find(caller, bucket_id, source)

        async def probe(conn: AsyncConnection) -> None:  # may the caller move it? before copying bytes
            try:
                if not await db.rename_object(conn, bucket_id, source, src["version"], dest_bucket, dest, "probe"):
                    raise errors.no_such_key()
            except pg_errors.ForeignKeyViolation:
                raise errors.no_such_bucket() from None

        await self.dry_run(caller, probe)
        version = str(uuid.uuid4())
        new_key = backend_key(dest_bucket, dest, version)
        await self._copy_bytes(self.key_of(src), new_key, dest)
        try:
            async with self.transaction(caller) as conn:
                if not await db.rename_object(conn, bucket_id, source, src["version"], dest_bucket, dest, version):
                    raise errors.no_such_key()
        except BaseException:
            await self.discard(new_key)
            raise
        await self.discard(self.key_of(src))

    async def copy(self, caller: RequestContext, bucket_id: str, source: str, dest_bucket: str, dest: str, *,
                   upsert: bool, copy_metadata: bool, user_metadata: dict[str, Any] | None) -> dict[str, Any]:
        validate_object_name(source)
        validate_object_name(dest)
        src = await self.find(caller, bucket_id, source)
        owner = caller.claims.get("sub")
        await self.check_write(caller, dest_bucket, dest, owner, upsert=upsert)
        version = str(uuid.uuid4())
        head = await self._copy_bytes(self.key_of(src), backend_key(dest_bucket, dest, version), dest)
        old = src.get("metadata") or {}
        meta = src.get("user_metadata") if copy_metadata else user_metadata
        object_id, metadata = await self.commit_object(
            caller, dest_bucket, dest, owner, version, head, old.get("mimetype") or "application/octet-stream",
            old.get("cacheControl") or "no-cache", meta, upsert=upsert)
        return {"Id": object_id, "Key": f"{dest_bucket}/{dest}", "name": dest, "bucket_id": dest_bucket,
                "version": version, "metadata": metadata}

    async def _copy_bytes(self, source: str, destination: str, name: str) -> ObjectHead:
        try:
            return await self.backend.copy(source, destination)
        except BackendMissing:
            raise errors.no_such_key() from None
        except KeyConflict:  # `name` runs through another object's stored version
            raise errors.invalid_key(name) from None

    # -- signed URLs -------------------------------------------------------------------

    async def sign_download(self, caller: RequestContext, bucket_id: str, name: str, expires_in: int,
                            transform: Transform | None) -> str:
        await self.find(caller, bucket_id, name)
        url = f"{bucket_id}/{name}"
        payload: dict[str, Any] = {"url": url}
        route = "object"
        if transform is not None:
            payload["transformations"] = transform.token()
            route = "render/image"
        token = signing.sign(self.ctx.keys, payload, expires_in, signing.DOWNLOAD)
        return f"/{route}/sign/{url}?token={token}"

    async def sign_many(self, caller: RequestContext, bucket_id: str, names: list[str], expires_in: int) -> list[dict[str, Any]]:
        async with self.transaction(caller) as conn:
            visible = await db.find_names(conn, bucket_id, names)
        results = []
        for name in names:
            if name in visible:
                url = f"{bucket_id}/{name}"
                token = signing.sign(self.ctx.keys, {"url": url}, expires_in, signing.DOWNLOAD)
                results.append({"error": None, "path": name, "signedURL": f"/object/sign/{url}?token={token}"})
            else:
                results.append({"error": "Either the object does not exist or you do not have access to it",
                                "path": name, "signedURL": None})
        return results

    async def sign_upload(self, caller: RequestContext, bucket_id: str, name: str, upsert: bool) -> dict[str, str]:
        validate_object_name(name)
        owner = caller.claims.get("sub")
        await self.check_write(caller, bucket_id, name, owner, upsert=upsert)
        url = f"{bucket_id}/{name}"
        token = signing.sign(self.ctx.keys, {"owner": owner, "url": url, "upsert": upsert},
                             signing.UPLOAD_URL_EXPIRY, signing.UPLOAD)
        return {"url": f"/object/upload/sign/{url}?token={token}", "token": token}


def _write(upsert: bool, update: bool) -> Write:
    """The statement writing an object row: an update, an upsert or an insert."""
    return db.update_object if update else db.upsert_object if upsert else db.insert_object


def js_date(moment: datetime) -> str:
    """A timestamp as JavaScript's toISOString writes it: UTC, milliseconds, Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _js_dates(row: dict[str, Any]) -> dict[str, Any]:
    return {k: js_date(v) if isinstance(v, datetime) else v for k, v in row.items()}


# list-v2's continuation token: base64 of `k:value` lines (l: last name, o: order,
# c: sort column, a: that column's value of the last row, v: a version), as storage-api's.
_CURSOR_KEYS = ("l", "o", "c", "a", "v")
_CURSOR_PART = re.compile(r"(\S):([^\r\u2028\u2029]*)")
_NOT_BASE64 = re.compile(r"[^A-Za-z0-9+/]")


def encode_cursor(parts: dict[str, str | None]) -> str:
    text = "\n".join(f"{k}:{parts[k]}" for k in _CURSOR_KEYS if parts.get(k))
    return base64.b64encode(text.encode()).decode()


def decode_cursor(cursor: str) -> dict[str, str]:
    """A token read as Node reads base64 (other characters skipped, padding optional), each
    line `k:value` with a known k; the order defaults to asc, as storage-api's decoder."""
    letters = _NOT_BASE64.sub("", cursor.replace("-", "+").replace("_", "/").split("=", 1)[0])
    letters = letters[: len(letters) - len(letters) % 4 + (len(letters) % 4 if len(letters) % 4 > 1 else 0)]
    text = base64.b64decode(letters + "=" * (-len(letters) % 4)).decode(errors="replace")
    result = {"l": "", "o": "asc"}
    for part in text.split("\n"):
        match = _CURSOR_PART.match(part)
        if match is None or match.group(1) not in _CURSOR_KEYS:
            raise errors.invalid_continuation_token()
        result[match.group(1)] = match.group(2)
    return result
