"""postgres_changes: read the change log, check each change against the subscribers of
this process in the database (RLS on the logged row, batched), push it to those allowed to
see it. The log is read in commit order with a cursor of this process (logreader.py).

It is read and checked on the authenticator's pool, as REST runs requests:
realtime.check_changes switches to each subscriber's role inside, so the policies run with
`session_user = 'authenticator'`, and a role the authenticator cannot become (a token
claiming `postgres`, say) sees nothing, as REST refuses it. Upstream Realtime evaluates them
from its admin connection; here the owner is a superuser, who could become any role and
would lend that to any code the policies call (platform_schema/0320).
"""

from __future__ import annotations

import uuid
import zlib
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson
import psycopg

from server.realtime import filters as flt
from server.realtime.logreader import BATCH, LogReader
from server.realtime.protocol import encode_raw_payload

if TYPE_CHECKING:
    from server.core.caller import Caller
    from server.core.pool import Pool
    from server.realtime.members import Member

_POLL_SQL = """
select c.id, c.entity::bigint, c.schema_name, c.table_name, c.action, c.record::text, c.old_record::text,
       to_char(c.created_at at time zone 'utc', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
from realtime.changes c
where c.id > %s
order by c.id
limit %s
"""
_CHECK_SQL = "select k, role_name, ids, cols::text, err, rls, pk from realtime.check_changes(%s::jsonb)"


# The published tables a binding names, matched as upstream does (LIKE, `*` for any).
_TABLES_SQL = """
select c.oid::bigint, exists (select 1 from pg_trigger t
                              where t.tgrelid = c.oid and t.tgname = 'supalite_realtime_capture' and t.tginitdeferred)
from pg_catalog.pg_publication_tables pt
join pg_catalog.pg_namespace n on n.nspname = pt.schemaname
join pg_catalog.pg_class c on c.relnamespace = n.oid and c.relname = pt.tablename
where pt.pubname = 'supabase_realtime'
  and pt.schemaname like (case %(schema)s when '*' then '%%' else %(schema)s end) escape ''
  and pt.tablename like (case %(table)s when '*' then '%%' else %(table)s end) escape ''
"""
# Also the last change committed before the subscription: the binding delivers only later ones.
# realtime.subscription's trigger (platform_schema/0330) refuses filters and columns upstream refuses.
_INSERT_SUB_SQL = """
with sub as (
  insert into realtime.subscription (subscription_id, entity, filters, claims, claims_role, node, selected_columns)
  select %s, e::oid::regclass, %s::jsonb, %s::jsonb, %s, %s, %s::text[] from unnest(%s::bigint[]) e
  returning id, entity::oid::bigint
)
select sub.id, sub.entity, (select coalesce(max(c.id), 0) from realtime.changes c) from sub
"""


def binding_id(params: dict[str, Any]) -> int:
    """A stable id for a postgres_changes entry (Realtime uses a hash of its params)."""
    return zlib.crc32(orjson.dumps(params, option=orjson.OPT_SORT_KEYS)) & 0x7FFFFFF


@dataclass(eq=False)
class PgBinding:
    """One `postgres_changes` entry of a channel's join config. Its filters are checked in the
    database with its RLS check (realtime.check_changes)."""

    channel: Member
    id: int
    params: dict[str, Any]
    event: str
    select: tuple[str, ...] | None = None  # the columns asked for (with the primary key); None: all
    db_ids: dict[int, int] = field(default_factory=dict)  # realtime.subscription id -> table oid
    since: int = 0  # the last change id committed before the subscription: older ones are not its own

    def wants(self, change_id: int, action: str) -> bool:
        return change_id > self.since and self.event in ("*", action)


async def subscribe(channel: Member, pool: Pool, caller: Caller, node: str, entries: list[dict[str, Any]],
                    ) -> tuple[list[dict[str, Any]], list[str], list[PgBinding]]:
    """Subscribe a channel's postgres_changes entries as Realtime does: all or none. The first
    entry refused (its params, no published table, the database refusing its filters) is the
    one error reported, and nothing is subscribed. Returns the join reply's entries and errors,
    and the bindings made (for the channel and the hub to hold)."""
    response = [{**params, "id": binding_id(params)} for params in entries]
    try:
        parsed = [flt.parse_params(params) for params in entries]
    except flt.ParamsError as exc:
        return response, [str(exc)], []
    bindings: list[PgBinding] = []
    error: str | None = None
    async with pool.connection() as conn:
        try:
            async with conn.transaction():
                for params, reply, p in zip(entries, response, parsed, strict=True):
                    cur = await conn.execute(_TABLES_SQL, {"schema": p.schema, "table": p.table})
                    tables = await cur.fetchall()
                    if not tables:
                        error = ("Unable to subscribe to changes with given parameters. Please check Realtime is"
                                 f" enabled for the given connect parameters: [{p.log_text()}]")
                        raise _Refused
                    if not all(has_trigger for _, has_trigger in tables):
                        await conn.execute("select realtime.sync_capture_triggers()")
                    try:
                        cur = await conn.execute(_INSERT_SUB_SQL, [
                            uuid.uuid4(), orjson.dumps([f.as_json() for f in p.filters]).decode(),
                            caller.claims_json, caller.role, node,
                            None if p.select is None else list(p.select), [oid for oid, _ in tables]])
                    except psycopg.DatabaseError as exc:
                        error = ("Unable to subscribe to changes with given parameters. An exception happened so"
                                 f" please check your connect parameters: [{p.log_text()}]."
                                 f" Exception: {flt.db_error_text(exc)}")
                        raise _Refused from None
                    rows = await cur.fetchall()
                    bindings.append(PgBinding(channel, reply["id"], params, p.event, p.select,
                                              {row[0]: row[1] for row in rows}, since=rows[0][2] if rows else 0))
        except _Refused:
            return response, [error or ""], []
    return response, [], bindings


class _Refused(Exception):
    """Ends the subscribing transaction (rolled back) on the first refused entry."""


@dataclass
class Change:
    schema: str
    table: str
    action: str
    record: dict[str, Any] | None
    old_record: dict[str, Any] | None
    commit_timestamp: str


def change_data(change: Change, cols: list[dict[str, str]], error: str | None, rls: bool,
                pk: list[str] | None, select: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The `data` Realtime sends: only the columns the subscriber's role may select (of them,
    those the binding selected and the primary key); `old_record` is the replica identity's
    columns (the primary key by default, the whole old row with REPLICA IDENTITY FULL), and
    only the primary key for a DELETE under RLS. `error` (no primary key, primary key not
    selectable) replaces the change."""
    if error:
        return {"schema": change.schema, "table": change.table, "type": change.action, "errors": [error]}
    if select is not None:
        cols = [c for c in cols if c["name"] in select or c["name"] in (pk or ())]
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


class ChangeFeed(LogReader):
    """The process's reader of realtime.changes: each change, checked against the RLS of the
    bindings that want it, goes to their channels. `bindings` and `by_entity` are the hub's."""

    def __init__(self, pool: Pool, bindings: dict[int, PgBinding], by_entity: dict[int, set[int]]) -> None:
        super().__init__("changes", "changes")
        self.pool = pool
        self.bindings = bindings
        self.by_entity = by_entity

    async def read(self) -> bool:
        async with self.pool.connection() as conn:
            if self.cursor is None or not self.by_entity:
                await self.skip_to_now(conn)  # nobody here subscribes: start from now
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
            db_ids = self.by_entity.get(entity)
            if not db_ids:
                continue
            change = Change(schema, table, action, orjson.loads(record) if record else None,
                            orjson.loads(old_record) if old_record else None, ts)
            wanted = [i for i in db_ids
                      if (b := self.bindings.get(i)) is not None and b.wants(change_id, action)]
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
        # One message per channel and column selection, naming the bindings it answers.
        per_channel: dict[tuple[Member, tuple[str, ...] | None], list[int]] = defaultdict(list)
        for db_id in db_ids:
            binding = self.bindings.get(db_id)
            if binding is not None and binding.id not in per_channel[binding.channel, binding.select]:
                per_channel[binding.channel, binding.select].append(binding.id)
        data: dict[tuple[str, ...] | None, bytes] = {}
        for (channel, select), binding_ids in per_channel.items():
            if select not in data:
                data[select] = orjson.dumps(change_data(change, cols, error, rls, pk, select))
            payload = b'{"ids":' + orjson.dumps(binding_ids) + b',"data":' + data[select] + b"}"
            channel.socket.send(encode_raw_payload(channel.socket.vsn, channel.topic, "postgres_changes", payload))
