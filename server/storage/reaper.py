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
"""

from __future__ import annotations

import asyncio
import logging

from server.context import AppContext
from server.db.listener import Subscription, cancel_all
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


class Reaper:
    def __init__(self, ctx: AppContext, backend: Backend, uploads: UploadStore) -> None:
        self.ctx = ctx
        self.backend = backend
        self.uploads = uploads
        self._wake = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []
        self._subscription: Subscription | None = None

    async def start(self) -> None:
        # Sweeping on connect reaps what was queued while nobody listened.
        self._subscription = self.ctx.listener.subscribe(
            (CHANNEL,), on_connect=self._wake.set, on_notify=lambda _: self._wake.set(), name="storage reaper")
        self._tasks = [asyncio.create_task(self._run())]

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
