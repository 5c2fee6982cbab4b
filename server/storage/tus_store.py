"""Where resumable uploads live between requests: their rows in storage.resumable_uploads
(platform_schema/0204), shared by every server process, and the leases that serialize
the requests writing to one upload.

A PATCH holds its upload through a lease: a token and an expiry written on the row,
renewed while the request reads and given back at its end. A request finding the lease
taken asks its holder to let go (NOTIFY on RELEASE_CHANNEL, heard by every process, as
storage-api's Postgres locker does), then tries again every LOCK_RETRY_S for LOCK_WAIT_S
before giving up with storage-api's LockTimeout. A process that dies holding a lease
holds it for at most LEASE_S; every write of progress names the lease, so a request
that lost its lease can never move an upload another request now owns.

Expired uploads are swept by every process's reaper (`for update skip locked`): their
scratch bytes are dropped, and so are completed bytes no object row points at.

A creation first reserves its row, held by the creating request (a lease no one else can
take) and counted against its caller's bound (TUS_MAX_UPLOADS_PER_CALLER, under a per-
caller advisory lock so that concurrent creations cannot overshoot it); only then does the
backend open the upload (a scratch file, an S3 multipart upload), and `opened` records it.
A refused creation never costs disk. Why 100 by default: a browser sending a folder runs
a few uploads at once (Uppy advises a `limit` of about 10), and a client restarting its
batch after failures makes new uploads while the old ones wait out their hour; 100 leaves
room for several such rounds, while an abandoning client holds at most 100 rows and
scratch files (each at most the size limit) until they expire, not 1,000 or a million.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

from server.core.context import AppContext
from server.core.listener import Subscription, cancel_all
from server.storage import errors
from server.storage.backends import Backend, PartState
from server.storage.paths import backend_key

log = logging.getLogger("supalite.storage.tus")

RELEASE_CHANNEL = "storage_resumable_release"
LEASE_S = 15  # a lease outlives its holder by at most this
RENEW_S = 5
LOCK_WAIT_S = 5.0  # storage-api's Postgres locker waits 5 s, asking every 500 ms
LOCK_RETRY_S = 0.5
SWEEP_BATCH = 100

_COLUMNS = ("id, bucket_id, name, version, scratch, upload_length, upload_offset, metadata, content_type,"
            " cache_control, backend_state, completed_at, created_at, expires_at, created_by")


@dataclass
class UploadRecord:
    id: str  # "<bucket>/<name>/<version>"
    bucket_id: str
    name: str
    version: str
    scratch: str
    length: int
    offset: int
    metadata: dict[str, str | None]
    content_type: str
    cache_control: str
    state: PartState
    completed: bool
    created_at: datetime
    expires_at: datetime
    created_by: str | None  # tus.caller_key of its creator (None: not bounded)

    @property
    def key(self) -> str:
        return backend_key(self.bucket_id, self.name, self.version)

    @classmethod
    def of(cls, row: dict[str, Any]) -> UploadRecord:
        return cls(row["id"], row["bucket_id"], row["name"], row["version"], row["scratch"], row["upload_length"],
                   row["upload_offset"], {key: value for key, value in row["metadata"]}, row["content_type"],
                   row["cache_control"], row["backend_state"], row["completed_at"] is not None, row["created_at"],
                   row["expires_at"], row["created_by"])


class LeaseLost(Exception):
    """Another request took the upload over (this one's lease had run out)."""


@dataclass
class Lease:
    record: UploadRecord
    token: str
    released: asyncio.Event  # set when another request asks for the upload, or the lease is lost


class UploadStore:
    def __init__(self, ctx: AppContext, backend: Backend) -> None:
        self.ctx = ctx
        self.backend = backend
        self.expiry_ms = ctx.settings.tus_url_expiry_ms
        self.max_per_caller = ctx.settings.tus_max_uploads_per_caller
        self._held: dict[str, Lease] = {}  # leases this process holds, by upload id
        self._subscription: Subscription | None = None

    # -- lifecycle: hearing the requests to let go of a lease --------------------------

    async def start(self) -> None:
        self._subscription = self.ctx.listener.subscribe(
            (RELEASE_CHANNEL,), on_connect=lambda: None, on_notify=self._on_release, name="storage resumable uploads")

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None

    def _on_release(self, notify: psycopg.Notify) -> None:
        lease = self._held.get(notify.payload)
        if lease is not None:
            lease.released.set()

    # -- rows --------------------------------------------------------------------------

    async def create(self, upload_id: str, scratch: str, length: int, metadata: dict[str, str | None],
                     content_type: str, cache_control: str, created_by: str | None, token: str) -> UploadRecord:
        """Reserve a new upload (`upload_id`: "<bucket>/<name>/<version>"), expiring
        TUS_URL_EXPIRY_MS from now, held by `token` until `opened`. Refused (SlowDown) when
        `created_by` already has TUS_MAX_UPLOADS_PER_CALLER uploads in progress."""
        bucket_id, rest = upload_id.split("/", 1)
        name, version = rest.rsplit("/", 1)
        async with self.ctx.admin_pool.connection() as conn, conn.transaction(), \
                conn.cursor(row_factory=dict_row) as cur:
            if created_by is not None and self.max_per_caller > 0:
                # One creation of a caller at a time: the count and the insert are one step.
                await cur.execute("select pg_advisory_xact_lock(hashtextextended(%s, 0))",
                                  [f"storage.resumable_uploads:{created_by}"])
                await cur.execute(
                    "select count(*) as n from storage.resumable_uploads"
                    " where created_by = %s and completed_at is null and expires_at > now()", [created_by])
                counted = await cur.fetchone()
                if counted is not None and counted["n"] >= self.max_per_caller:
                    raise errors.too_many_uploads(self.max_per_caller)
            await cur.execute(
                "insert into storage.resumable_uploads (id, bucket_id, name, version, scratch, upload_length,"
                " metadata, content_type, cache_control, expires_at, created_by, lock_token, lock_expires)"
                " values (%s, %s, %s, %s, %s, %s, %s, %s, %s, now() + %s * interval '1 millisecond', %s, %s,"
                " now() + %s * interval '1 second')"
                f" returning {_COLUMNS}",
                [upload_id, bucket_id, name, version, scratch, length, Jsonb(list(metadata.items())), content_type,
                 cache_control, self.expiry_ms, created_by, token, LEASE_S])
            row = await cur.fetchone()
        assert row is not None
        return UploadRecord.of(row)

    async def opened(self, record: UploadRecord, token: str, state: PartState) -> bool:
        """Record the state of the backend's new upload and let go of the creation's hold;
        False when the row is gone (nothing may then point at those bytes)."""
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(
                "update storage.resumable_uploads set backend_state = %s,"
                " lock_expires = case when lock_token = %s then null else lock_expires end,"
                " lock_token = case when lock_token = %s then null else lock_token end"
                " where id = %s returning id", [Jsonb(state), token, token, record.id])
            found = await cur.fetchone() is not None
        record.state = state
        return found

    async def get(self, upload_id: str) -> UploadRecord | None:
        async with self.ctx.admin_pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(f"select {_COLUMNS} from storage.resumable_uploads where id = %s", [upload_id])
            row = await cur.fetchone()
        return UploadRecord.of(row) if row else None

    async def save(self, lease: Lease, state: PartState, offset: int) -> None:
        """Record a durable point; only the lease's holder may."""
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(
                "update storage.resumable_uploads set backend_state = %s, upload_offset = %s"
                " where id = %s and lock_token = %s returning id",
                [Jsonb(state), offset, lease.record.id, lease.token])
            if await cur.fetchone() is None:
                raise LeaseLost(lease.record.id)
        lease.record.state, lease.record.offset = state, offset

    async def mark_completed(self, upload_id: str) -> None:
        async with self.ctx.admin_pool.connection() as conn:
            await conn.execute("update storage.resumable_uploads set completed_at = now() where id = %s", [upload_id])

    async def object_written(self, record: UploadRecord) -> bool:
        """Whether an object row points at this upload's bytes (its completion committed)."""
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute("select 1 from storage.objects where bucket_id = %s and name = %s and version = %s",
                                     [record.bucket_id, record.name, record.version])
            return await cur.fetchone() is not None

    async def remove(self, upload_id: str) -> None:
        async with self.ctx.admin_pool.connection() as conn:
            await conn.execute("delete from storage.resumable_uploads where id = %s", [upload_id])

    # -- leases ------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def hold(self, upload_id: str) -> AsyncIterator[Lease | None]:
        """The upload under this request's lease (None: no such upload), renewed until the
        block ends. Raises storage-api's LockTimeout when its holder does not let go."""
        token = str(uuid.uuid4())
        record = await self._acquire(upload_id, token)
        if record is None:
            yield None
            return
        lease = Lease(record, token, asyncio.Event())
        self._held[upload_id] = lease
        renewer = asyncio.create_task(self._renew(lease))
        try:
            yield lease
        finally:
            await cancel_all([renewer])
            if self._held.get(upload_id) is lease:
                del self._held[upload_id]
            with contextlib.suppress(Exception):
                async with self.ctx.admin_pool.connection() as conn:
                    await conn.execute("update storage.resumable_uploads set lock_token = null, lock_expires = null"
                                       " where id = %s and lock_token = %s", [upload_id, token])

    async def _acquire(self, upload_id: str, token: str) -> UploadRecord | None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + LOCK_WAIT_S
        while True:
            async with self.ctx.admin_pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
                await cur.execute(
                    "update storage.resumable_uploads set lock_token = %s,"
                    " lock_expires = now() + %s * interval '1 second'"
                    " where id = %s and (lock_token is null or lock_expires < now())"
                    f" returning {_COLUMNS}", [token, LEASE_S, upload_id])
                row = await cur.fetchone()
                if row is not None:
                    return UploadRecord.of(row)
                await cur.execute("select 1 from storage.resumable_uploads where id = %s", [upload_id])
                if await cur.fetchone() is None:
                    return None
                await cur.execute("select pg_notify(%s, %s)", [RELEASE_CHANNEL, upload_id])
            if loop.time() >= deadline:
                raise errors.StorageError("LockTimeout", 503, "acquiring lock timeout")
            await asyncio.sleep(LOCK_RETRY_S)

    async def _renew(self, lease: Lease) -> None:
        while True:
            await asyncio.sleep(RENEW_S)
            try:
                async with self.ctx.admin_pool.connection() as conn:
                    cur = await conn.execute(
                        "update storage.resumable_uploads set lock_expires = now() + %s * interval '1 second'"
                        " where id = %s and lock_token = %s returning id", [LEASE_S, lease.record.id, lease.token])
                    renewed = await cur.fetchone() is not None
            except Exception as exc:  # the database away: keep going, the save at the end decides
                log.warning("resumable upload: cannot renew the lease of %s (%s)", lease.record.id, exc)
                continue
            if not renewed:
                lease.released.set()
                return

    # -- expiry (run by the reaper) ----------------------------------------------------

    def sweep_interval(self) -> float:
        """Often enough that an upload is gone soon after it expires, at most once a minute."""
        return min(60.0, max(1.0, self.expiry_ms / 2000))

    async def sweep(self) -> int:
        """Remove expired uploads nobody holds, with their bytes; the number removed."""
        removed = 0
        while True:
            async with self.ctx.admin_pool.connection() as conn, conn.transaction(), \
                    conn.cursor(row_factory=dict_row) as cur:
                await cur.execute(
                    f"select {_COLUMNS}, exists (select 1 from storage.objects o where o.bucket_id = u.bucket_id"
                    "   and o.name = u.name and o.version = u.version) as live"
                    " from storage.resumable_uploads u"
                    " where expires_at < now() and (lock_token is null or lock_expires < now())"
                    " order by expires_at limit %s for update skip locked", [SWEEP_BATCH])
                rows = await cur.fetchall()
                for row in rows:
                    record = UploadRecord.of(row)
                    try:
                        await self.backend.resumable_abort(record.scratch, record.key, record.state)
                        if not row["live"]:  # completed bytes whose row was never written
                            await self.backend.delete(record.key)
                    except Exception as exc:  # kept for the next sweep
                        log.warning("resumable uploads: cannot remove the bytes of %s (%s)", record.id, exc)
                        continue
                    await cur.execute("delete from storage.resumable_uploads where id = %s", [record.id])
                    removed += 1
            if len(rows) < SWEEP_BATCH:
                return removed
