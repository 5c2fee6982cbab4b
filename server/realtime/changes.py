"""postgres_changes: read the change log, check each change against the subscribers of
this process in the database (RLS on the logged row, batched), push it to those allowed to
see it.

The log's ids follow commit order (see platform_schema/0310_realtime_commit_order.sql): a
reader that sees a change already sees every committed change below it, so the cursor is the
last id read. A change is never skipped, even when it committed while the listener was
reconnecting or while other transactions stayed open, and never read twice by the same
process.

The log is read and checked on the authenticator's pool, as REST runs requests:
realtime.check_changes switches to each subscriber's role inside, so the policies run with
`session_user = 'authenticator'`, and a role the authenticator cannot become (a token
claiming `postgres`, say) sees nothing, as REST refuses it. Upstream Realtime evaluates them
from its admin connection; here the owner is a superuser, who could become any role and
would lend that to any code the policies call (platform_schema/0320).
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

LAST_ID_SQL = "select coalesce(max(id), 0) from realtime.changes"
_POLL_SQL = """
select c.id, c.entity::bigint, c.schema_name, c.table_name, c.action, c.record::text, c.old_record::text,
       to_char(c.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
from realtime.changes c
where c.id > %s
order by c.id
limit %s
"""
_CHECK_SQL = "select k, role_name, ids, cols::text, err, rls, pk from realtime.check_changes(%s::jsonb)"


@dataclass(eq=False)
class PgBinding:
    """One `postgres_changes` entry of a channel's join config."""

    channel: Channel
    id: int
    params: dict[str, Any]
    event: str
    filters: list[flt.Filter]
    db_ids: dict[int, int] = field(default_factory=dict)  # realtime.subscription id -> table oid
    since: int = 0  # the last change id committed before the subscription: older ones are not its own

    def wants(self, change_id: int, action: str, row: dict[str, Any] | None) -> bool:
        return change_id > self.since and self.event in ("*", action) and flt.matches(self.filters, row)


@dataclass
class Change:
    schema: str
    table: str
    action: str
    record: dict[str, Any] | None
    old_record: dict[str, Any] | None
    commit_timestamp: str


def change_data(change: Change, cols: list[dict[str, str]], error: str | None, rls: bool,
                pk: list[str] | None) -> dict[str, Any]:
    """The `data` Realtime sends: only the columns the subscriber's role may select;
    `old_record` is the replica identity's columns (the primary key by default, the whole
    old row with REPLICA IDENTITY FULL), and only the primary key for a DELETE under RLS.
    `error` (no primary key, primary key not selectable) replaces the change."""
    if error:
        return {"schema": change.schema, "table": change.table, "type": change.action, "errors": [error]}
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
        self.cursor: int | None = None  # the last change id read

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
            except Exception as exc:
                log.warning("realtime: reading changes failed (%s); retrying", exc)
                await asyncio.sleep(0.5)

    async def poll(self) -> bool:
        """Read and dispatch one batch; True when more may be waiting."""
        async with self.hub.ctx.api_pool.connection() as conn:
            if self.cursor is None or not self.hub.by_entity:
                # Nobody here subscribes: start from now.
                cur = await conn.execute(LAST_ID_SQL)
                row = await cur.fetchone()
                assert row is not None
                self.cursor = int(row[0])
                return False
            cur = await conn.execute(_POLL_SQL, [self.cursor, BATCH])
            rows = await cur.fetchall()
            if rows:
                await self._dispatch(conn, rows)
                self.cursor = int(rows[-1][0])
            return len(rows) == BATCH

    async def _dispatch(self, conn: psycopg.AsyncConnection[Any], rows: list[tuple[Any, ...]]) -> None:
        items: list[dict[str, Any]] = []
        changes: dict[int, Change] = {}
        for k, (change_id, entity, schema, table, action, record, old_record, ts) in enumerate(rows):
            db_ids = self.hub.by_entity.get(entity)
            if not db_ids:
                continue
            change = Change(schema, table, action, orjson.loads(record) if record else None,
                            orjson.loads(old_record) if old_record else None, ts)
            row = change.old_record if action == "DELETE" else change.record
            wanted = [i for i in db_ids
                      if (b := self.hub.bindings.get(i)) is not None and b.wants(change_id, action, row)]
            if wanted:
                items.append({"k": k, "change": change_id, "ids": wanted})
                changes[k] = change
        if not items:
            return
        async with conn.transaction():
            cur = await conn.execute(_CHECK_SQL, [orjson.dumps(items).decode()])
            results = await cur.fetchall()
        for k, _role, ids, cols, error, rls, pk in results:
            if ids:
                self._send(changes[k], ids, orjson.loads(cols), error, rls, pk)

    def _send(self, change: Change, db_ids: list[int], cols: list[dict[str, str]], error: str | None, rls: bool,
              pk: list[str] | None) -> None:
        data = orjson.dumps(change_data(change, cols, error, rls, pk))
        per_channel: dict[Channel, list[int]] = defaultdict(list)
        for db_id in db_ids:
            binding = self.hub.bindings.get(db_id)
            if binding is not None and binding.id not in per_channel[binding.channel]:
                per_channel[binding.channel].append(binding.id)
        for channel, binding_ids in per_channel.items():
            payload = b'{"ids":' + orjson.dumps(binding_ids) + b',"data":' + data + b"}"
            channel.socket.send(encode_raw_payload(channel.socket.vsn, channel.topic, "postgres_changes", payload))
