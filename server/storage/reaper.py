"""The reaper: removes from the backend the bytes whose rows are gone.

A trigger on storage.objects (platform_schema/0202) queues the key of every deleted or
re-keyed row in storage.deleted_objects, in the deleting transaction, and NOTIFYs. Every
server process runs one reaper: it LISTENs (through the process's shared listener), and
sweeps on each notification, on (re)connect and every SWEEP_INTERVAL_S. Several processes
share the queue safely: a sweep claims rows with `for update skip locked`, deletes their
bytes and commits, so a crash mid-sweep leaves the rows for the next one. Deleting a key
twice (the service's own delete paths also remove bytes directly) is harmless: a missing
key is not an error for any backend.

Each sweep also removes the resumable uploads past their expiry, with their bytes
(tus_store.UploadStore.sweep), at least as often as their expiry asks for.

Bytes are stored before their row is written, so a process killed in between (SIGKILL,
a power cut) leaves a stored version no row points to, and on S3 a large upload killed
midway leaves an unfinished multipart upload: nothing would ever serve or queue them. The
orphan sweep lists the backend's versions placed more than STORAGE_ORPHAN_GRACE_MS ago
and removes those no object row and no resumable upload points to, and aborts the
multipart uploads as old that no resumable upload records. The grace (a day by default)
must exceed the longest time between bytes being placed and their row being committed:
milliseconds for a file backend's upload or copy, but on S3 a large upload is a multipart
upload dated from its start, so there the longest upload (a resumable upload's bytes are
kept anyway while its row lives). Walking a whole store is not free: one process at a
time sweeps, every quarter of the grace at most hourly (the last sweep's time is in
supalite.state).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta

from server.core.context import AppContext
from server.core.listener import Subscription, cancel_all
from server.storage.backends import Backend
from server.storage.paths import backend_key
from server.storage.tus_store import UploadStore

log = logging.getLogger("supalite.storage.reaper")

CHANNEL = "storage_deleted_objects"
SWEEP_INTERVAL_S = 60.0
BATCH = 200
MAX_ATTEMPTS = 10

# A key whose (bucket, name, version) a row points to again is not garbage: drop it from
# the queue without touching the bytes.
_CLAIM = """
delete from storage.deleted_objects d
where d.id in (select id from storage.deleted_objects order by id limit %s for update skip locked)
returning d.bucket_id, d.name, d.version, d.attempts,
  exists (select 1 from storage.objects o
          where o.bucket_id = d.bucket_id and o.name = d.name and o.version is not distinct from d.version) as live
"""
_REQUEUE = "insert into storage.deleted_objects (bucket_id, name, version, attempts) values (%s, %s, %s, %s)"

ORPHAN_STATE_KEY = "storage_orphan_sweep"
# The turn of one process: taken when the last sweep (by any process) is old enough.
_CLAIM_ORPHAN_SWEEP = """
insert into supalite.state (key, value) values (%(key)s, now()::text)
on conflict (key) do update set value = excluded.value
where supalite.state.value::timestamptz <= now() - %(every_ms)s * interval '1 millisecond'
returning key
"""
# Of the stored versions listed, those no object row and no resumable upload points to
# (nor a row without a version, whose bytes a file backend keeps at `<name>`: a name
# ending in a UUID would look like a version).
_UNREFERENCED = """
select k.bucket, k.name, k.version from unnest(%s::text[], %s::text[], %s::text[]) as k(bucket, name, version)
where not exists (select 1 from storage.objects o
                  where o.bucket_id = k.bucket and o.name = k.name and o.version = k.version)
  and not exists (select 1 from storage.objects o
                  where o.bucket_id = k.bucket and o.name = k.name || '/' || k.version and coalesce(o.version, '') = '')
  and not exists (select 1 from storage.resumable_uploads u where u.id = k.bucket || '/' || k.name || '/' || k.version)
"""
# Of the unfinished multipart uploads listed, those no resumable upload records.
_UNRECORDED = """
select t.key, t.upload_id from unnest(%s::text[], %s::text[]) as t(key, upload_id)
where not exists (select 1 from storage.resumable_uploads u where u.backend_state ->> 'uploadId' = t.upload_id)
"""


class Reaper:
    def __init__(self, ctx: AppContext, backend: Backend, uploads: UploadStore) -> None:
        self.ctx = ctx
        self.backend = backend
        self.uploads = uploads
        self.orphan_grace = timedelta(milliseconds=ctx.settings.storage_orphan_grace_ms)
        # A quarter of the grace, between 1 s and an hour: orphans go within 1.25 graces.
        self.orphan_interval = min(3600.0, max(1.0, self.orphan_grace.total_seconds() / 4))
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        # Sweeping on connect reaps what was queued while nobody listened.
        self._subscription = self.ctx.listener.subscribe(
            (CHANNEL,), on_connect=self._wake.set, on_notify=lambda _: self._wake.set(), name="storage reaper")
        self._tasks = [asyncio.create_task(self._run()), asyncio.create_task(self._run_orphans())]

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None
        await cancel_all(self._tasks)
        self._tasks = []

    async def _run(self) -> None:
        interval = min(SWEEP_INTERVAL_S, self.uploads.sweep_interval())
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), interval)
            except TimeoutError:
                pass
            self._wake.clear()
            for sweep in (self.sweep, self.uploads.sweep):
                try:
                    await sweep()
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    log.warning("storage reaper: sweep failed (%s)", exc)

    async def _run_orphans(self) -> None:
        while True:
            try:
                if await self._claim_orphan_sweep():
                    await self.sweep_orphans()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("storage reaper: orphan sweep failed (%s)", exc)
            await asyncio.sleep(self.orphan_interval)

    async def _claim_orphan_sweep(self) -> bool:
        every_ms = self.orphan_interval * 900  # 90%: a timer firing a little early keeps its turn
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(_CLAIM_ORPHAN_SWEEP, {"key": ORPHAN_STATE_KEY, "every_ms": every_ms})
            return await cur.fetchone() is not None

    async def sweep_orphans(self) -> int:
        """Remove the stored versions and unfinished multipart uploads older than the grace
        that nothing points to; the number removed."""
        before = datetime.now(UTC) - self.orphan_grace
        removed = 0
        async for keys in self.backend.stored_before(before):
            for key in await self._unreferenced(keys):
                removed += await self._delete(key)
        async for uploads in self.backend.unfinished_before(before):
            for key, upload_id in await self._unrecorded(uploads):
                try:
                    await self.backend.abort_unfinished(key, upload_id)
                    removed += 1
                except Exception as exc:
                    log.warning("storage reaper: cannot abort the upload %s of %s (%s)", upload_id, key, exc)
        if removed:
            log.warning("storage reaper: removed %d stored version(s) or unfinished upload(s) that no row points to"
                        " (left by a process stopped mid-upload)", removed)
        return removed

    async def _unreferenced(self, keys: list[str]) -> list[str]:
        parts = [(key.split("/", 1)[0], *key.split("/", 1)[1].rsplit("/", 1)) for key in keys]
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(_UNREFERENCED, [[p[0] for p in parts], [p[1] for p in parts],
                                                     [p[2] for p in parts]])
            return [backend_key(bucket, name, version) for bucket, name, version in await cur.fetchall()]

    async def _unrecorded(self, uploads: list[tuple[str, str]]) -> list[tuple[str, str]]:
        async with self.ctx.admin_pool.connection() as conn:
            cur = await conn.execute(_UNRECORDED, [[key for key, _ in uploads], [upload for _, upload in uploads]])
            return [(key, upload) for key, upload in await cur.fetchall()]

    async def sweep(self) -> int:
        """Reap until the queue has nothing this process can claim; the number of keys removed."""
        removed = 0
        while True:
            claimed, deleted, failed = await self._sweep_batch()
            removed += deleted
            if claimed < BATCH or failed:
                return removed

    async def _sweep_batch(self) -> tuple[int, int, int]:
        deleted = failed = 0
        async with self.ctx.admin_pool.connection() as conn, conn.transaction():
            rows = await (await conn.execute(_CLAIM, [BATCH])).fetchall()
            for bucket_id, name, version, attempts, live in rows:
                if live or not version:
                    continue  # still referenced, or a row the service never stored bytes for
                if await self._delete(backend_key(bucket_id, name, version)):
                    deleted += 1
                    continue
                failed += 1
                if attempts + 1 < MAX_ATTEMPTS:
                    await conn.execute(_REQUEUE, [bucket_id, name, version, attempts + 1])
                else:
                    log.error("storage reaper: giving up on %s/%s (version %s)", bucket_id, name, version)
        return len(rows), deleted, failed

    async def _delete(self, key: str) -> bool:
        try:
            await self.backend.delete(key)
            return True
        except Exception as exc:
            log.warning("storage reaper: cannot delete %s (%s)", key, exc)
            return False
