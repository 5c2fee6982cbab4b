"""postgres_changes: read the change log, check each change against the subscribers of
this process in the database (RLS, batched), push it to those allowed to see it.

The cursor is (xid, id): the reader takes only rows of transactions older than the oldest
transaction still running (pg_snapshot_xmin), in (xid, id) order. No row can appear below
that point later, so a change is never skipped, even when it committed while the listener
was reconnecting, and never read twice by the same process.
"""

from __future__ import annotations

import asyncio
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import psycopg

from server.realtime import filters as flt
from server.realtime.protocol import encode_raw_payload

if TYPE_CHECKING:
    from server.realtime.channel import Channel
    from server.realtime.hub import Hub

log = logging.getLogger("supalite.realtime")

BATCH = 500
POLL_EVERY_S = 1.0  # a safety net: NOTIFY normally wakes the reader at once

_XMIN_SQL = "select pg_snapshot_xmin(pg_current_snapshot())::text"
_POLL_SQL = """
select s.xmin::text, c.id, c.xid::text, c.entity::bigint, c.schema_name, c.table_name, c.action,
       c.record::text, c.old_record::text,
       to_char(c.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
from (select pg_snapshot_xmin(pg_current_snapshot()) as xmin) s
left join lateral (
  select * from realtime.changes c
  where (c.xid, c.id) > (%s::xid8, %s) and c.xid < s.xmin
  order by c.xid, c.id
  limit %s
) c on true
"""
_CHECK_SQL = "select k, role_name, ids, cols::text, denied, rls, pk from realtime.check_changes(%s::jsonb)"


@dataclass(eq=False)
class PgBinding:
    """One `postgres_changes` entry of a channel's join config."""

    channel: Channel
    id: int
    params: dict[str, Any]
    event: str
    filters: list[flt.Filter]
    db_ids: dict[int, int] = field(default_factory=dict)  # realtime.subscription id -> table oid

    def wants(self, action: str, row: dict[str, Any] | None) -> bool:
        return self.event in ("*", action) and flt.matches(self.filters, row)


@dataclass
class Change:
    schema: str
    table: str
    action: str
    record: dict[str, Any] | None
    old_record: dict[str, Any] | None
    commit_timestamp: str


def change_data(change: Change, cols: list[dict[str, str]], denied: bool, rls: bool,
                pk: list[str] | None) -> dict[str, Any]:
    """The `data` Realtime sends: only the columns the subscriber's role may select; a
    DELETE of a table under RLS carries only the primary key."""
    if denied:
        return {"schema": change.schema, "table": change.table, "type": change.action,
                "errors": ["Error 401: Unauthorized"]}
    names = [c["name"] for c in cols]
    data: dict[str, Any] = {
        "schema": change.schema, "table": change.table, "commit_timestamp": change.commit_timestamp,
        "type": change.action, "columns": cols, "errors": None,
    }

    def visible(row: dict[str, Any] | None, keys: list[str]) -> dict[str, Any] | None:
        if not row:
            return None
        picked = {k: row[k] for k in keys if k in row}
        return picked or None

    if change.action in ("INSERT", "UPDATE"):
        data["record"] = visible(change.record, names) or {}
    if change.action == "UPDATE":
        data["old_record"] = visible(change.old_record, names)
    if change.action == "DELETE":
        keys = [n for n in names if n in (pk or [])] if rls else names
        data["old_record"] = visible(change.old_record, keys)
    return data


class ChangeFeed:
    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._wake = asyncio.Event()
        self.cursor: tuple[str, int] | None = None

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        while True:
            try:
                await asyncio.wait_for(self._wake.wait(), POLL_EVERY_S)
            except TimeoutError:
                pass
            self._wake.clear()
            try:
                while await self.poll():
                    pass
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - keep reading after a failure
                log.warning("realtime: reading changes failed (%s); retrying", exc)
                await asyncio.sleep(0.5)

    async def poll(self) -> bool:
        """Read and dispatch one batch; True when more may be waiting."""
        async with self.hub.ctx.admin_pool.connection() as conn:
            if self.cursor is None or not self.hub.by_entity:
                # Nobody here subscribes: start from now.
                cur = await conn.execute(_XMIN_SQL)
                row = await cur.fetchone()
                assert row is not None
                self.cursor = (row[0], 0)
                return False
            cur = await conn.execute(_POLL_SQL, [self.cursor[0], self.cursor[1], BATCH])
            rows = await cur.fetchall()
            xmin = rows[0][0]
            changes = [r for r in rows if r[1] is not None]
            if changes:
                await self._dispatch(conn, changes)
            if len(changes) == BATCH:
                last = changes[-1]
                self.cursor = (last[2], last[1])
                return True
            self.cursor = (xmin, 0)
            return False

    async def _dispatch(self, conn: psycopg.AsyncConnection[Any], rows: list[tuple[Any, ...]]) -> None:
        items: list[dict[str, Any]] = []
        changes: dict[int, Change] = {}
        for k, (_, change_id, _, entity, schema, table, action, record, old_record, ts) in enumerate(rows):
            db_ids = self.hub.by_entity.get(entity)
            if not db_ids:
                continue
            change = Change(schema, table, action, orjson.loads(record) if record else None,
                            orjson.loads(old_record) if old_record else None, ts)
            row = change.old_record if action == "DELETE" else change.record
            wanted = [i for i in db_ids if (b := self.hub.bindings.get(i)) is not None and b.wants(action, row)]
            if wanted:
                items.append({"k": k, "change": change_id, "ids": wanted})
                changes[k] = change
        if not items:
            return
        async with conn.transaction():
            cur = await conn.execute(_CHECK_SQL, [orjson.dumps(items).decode()])
            results = await cur.fetchall()
        for k, _role, ids, cols, denied, rls, pk in results:
            if ids:
                self._send(changes[k], ids, orjson.loads(cols), denied, rls, pk)

    def _send(self, change: Change, db_ids: list[int], cols: list[dict[str, str]], denied: bool, rls: bool,
              pk: list[str] | None) -> None:
        data = orjson.dumps(change_data(change, cols, denied, rls, pk))
        per_channel: dict[Channel, list[int]] = defaultdict(list)
        for db_id in db_ids:
            binding = self.hub.bindings.get(db_id)
            if binding is not None and binding.id not in per_channel[binding.channel]:
                per_channel[binding.channel].append(binding.id)
        for channel, binding_ids in per_channel.items():
            payload = b'{"ids":' + orjson.dumps(binding_ids) + b',"data":' + data + b"}"
            channel.socket.send(encode_raw_payload(channel.socket.vsn, channel.topic, "postgres_changes", payload))
