"""SQL of the storage service: every statement runs on a connection opened by
`request_transaction`, under the role whose RLS policies then decide."""

from __future__ import annotations

import uuid
from typing import Any, TypedDict

import orjson
from psycopg import AsyncConnection, AsyncCursor, sql
from psycopg.abc import Params, QueryNoTemplate
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb

# owner: '' rather than null, as storage3's Bucket model requires a string.
BUCKET_COLUMNS = ("id, name, coalesce(owner::text, '') as owner, public, file_size_limit, allowed_mime_types, type, created_at, updated_at")
OBJECT_COLUMNS = ("id, bucket_id, name, owner, owner_id, version, metadata, user_metadata,"
                  " created_at, updated_at, last_accessed_at")
BUCKET_SORT = {"id", "name", "created_at", "updated_at"}


class BucketOptions(TypedDict, total=False):
    """The settings a create or update body may give; an update writes only those given."""

    public: bool
    file_size_limit: int | None
    allowed_mime_types: list[str] | None


class NewBucket(BucketOptions, total=True):
    id: str
    name: str
    type: str


async def fetch_one(conn: AsyncConnection, query: QueryNoTemplate, params: Params) -> dict[str, Any] | None:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query, params)
        return await cur.fetchone()


async def fetch_all(conn: AsyncConnection, query: QueryNoTemplate, params: Params) -> list[dict[str, Any]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query, params)
        return await cur.fetchall()


async def fetch_json(conn: AsyncConnection, query: QueryNoTemplate, params: Params) -> bytes:
    """A statement whose single value is JSON built by Postgres, passed through as bytes."""
    row = await (await conn.execute(query, params)).fetchone()
    value = row[0] if row else None
    return value.encode() if isinstance(value, str) else orjson.dumps(value)


# -- buckets ---------------------------------------------------------------------------

async def bucket(conn: AsyncConnection, bucket_id: str) -> dict[str, Any] | None:
    query = sql.SQL("select {} from storage.buckets where id = %s").format(sql.SQL(BUCKET_COLUMNS))
    return await fetch_one(conn, query, [bucket_id])


def _bucket_json(with_type: bool) -> sql.Composable:
    """A bucket as storage-api's response schema writes it: its properties in the schema's
    order, `owner` a string ('' for none), dates as JavaScript's toISOString (ms, Z)."""
    return sql.SQL(
        "json_build_object('id', id, {type} 'name', name, 'owner', coalesce(owner::text, ''), 'public', public,"
        " 'file_size_limit', file_size_limit, 'allowed_mime_types', allowed_mime_types,"
        " 'created_at', {created}, 'updated_at', {updated})"
    ).format(type=sql.SQL("'type', type," if with_type else ""), created=_js_date("created_at"),
             updated=_js_date("updated_at"))


def _js_date(column: str) -> sql.Composable:
    return sql.SQL("""coalesce(to_char({} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '')""").format(
        sql.Identifier(column))


async def bucket_json(conn: AsyncConnection, bucket_id: str) -> bytes | None:
    """GET /bucket/{id}: the bucket as the caller may see it, None when not."""
    query = sql.SQL("select {}::text from storage.buckets where id = %s").format(_bucket_json(False))
    row = await (await conn.execute(query, [bucket_id])).fetchone()
    return row[0].encode() if row else None


async def list_buckets(conn: AsyncConnection, limit: int | None, offset: int, search: str,
                       column: str, order: str, with_type: bool = True) -> bytes:
    query = sql.SQL(
        "select coalesce(json_agg({bucket} order by {col} {order}), '[]')::text from ("
        " select * from storage.buckets where name ilike '%%' || %s || '%%'"
        " order by {col} {order} limit %s offset %s) b"
    ).format(bucket=_bucket_json(with_type), col=sql.Identifier(column if column in BUCKET_SORT else "name"),
             order=sql.SQL("desc" if order == "desc" else "asc"))
    return await fetch_json(conn, query, [search, limit, offset])


async def insert_bucket(conn: AsyncConnection, values: NewBucket, owner: str | None) -> None:
    await conn.execute(
        "insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types, type)"
        " values (%s, %s, %s::uuid, %s, %s, %s, %s, %s)",
        [values["id"], values["name"], _uuid_or_none(owner), owner, values["public"],
         values["file_size_limit"], values["allowed_mime_types"], values["type"]],
    )


async def update_bucket(conn: AsyncConnection, bucket_id: str, changes: BucketOptions) -> bool:
    assignments: list[sql.Composable] = [sql.SQL("{} = {}").format(sql.Identifier(k), sql.Placeholder()) for k in changes]
    assignments.append(sql.SQL("updated_at = now()"))
    query = sql.SQL("update storage.buckets set {} where id = {} returning id").format(
        sql.SQL(", ").join(assignments), sql.Placeholder())
    cur = await conn.execute(query, [*changes.values(), bucket_id])
    return await cur.fetchone() is not None


async def delete_bucket(conn: AsyncConnection, bucket_id: str) -> bool:
    cur = await conn.execute("delete from storage.buckets where id = %s returning id", [bucket_id])
    return await cur.fetchone() is not None


async def count_objects(conn: AsyncConnection, bucket_id: str) -> int:
    cur = await conn.execute("select count(*) from storage.objects where bucket_id = %s", [bucket_id])
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def delete_all_objects(conn: AsyncConnection, bucket_id: str) -> list[dict[str, Any]]:
    return await fetch_all(conn, "delete from storage.objects where bucket_id = %s returning name, version", [bucket_id])


# -- objects ---------------------------------------------------------------------------

async def find_object(conn: AsyncConnection, bucket_id: str, name: str, for_update: bool = False) -> dict[str, Any] | None:
    query = sql.SQL("select {} from storage.objects where bucket_id = %s and name = %s{}").format(
        sql.SQL(OBJECT_COLUMNS), sql.SQL(" for update" if for_update else ""))
    return await fetch_one(conn, query, [bucket_id, name])


async def find_names(conn: AsyncConnection, bucket_id: str, names: list[str]) -> set[str]:
    cur = await conn.execute("select name from storage.objects where bucket_id = %s and name = any(%s)", [bucket_id, names])
    return {row[0] for row in await cur.fetchall()}


async def insert_object(conn: AsyncConnection, bucket_id: str, name: str, owner: str | None, version: str,
                        metadata: dict[str, Any], user_metadata: dict[str, Any] | None) -> str:
    cur = await conn.execute(
        "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata, user_metadata)"
        " values (%s, %s, %s::uuid, %s, %s, %s, %s) returning id",
        [bucket_id, name, _uuid_or_none(owner), owner, version, Jsonb(metadata), _jsonb(user_metadata)],
    )
    return await _returned_id(cur)


async def upsert_object(conn: AsyncConnection, bucket_id: str, name: str, owner: str | None, version: str,
                        metadata: dict[str, Any], user_metadata: dict[str, Any] | None) -> str:
    """INSERT ... ON CONFLICT DO UPDATE: Postgres then checks INSERT, SELECT and UPDATE policies."""
    cur = await conn.execute(
        "insert into storage.objects (bucket_id, name, owner, owner_id, version, metadata, user_metadata)"
        " values (%s, %s, %s::uuid, %s, %s, %s, %s)"
        " on conflict (bucket_id, name) do update set owner = excluded.owner, owner_id = excluded.owner_id,"
        " version = excluded.version, metadata = excluded.metadata, user_metadata = excluded.user_metadata,"
        " updated_at = now(), last_accessed_at = now()"
        " returning id",
        [bucket_id, name, _uuid_or_none(owner), owner, version, Jsonb(metadata), _jsonb(user_metadata)],
    )
    return await _returned_id(cur)


async def update_object(conn: AsyncConnection, bucket_id: str, name: str, owner: str | None, version: str,
                        metadata: dict[str, Any], user_metadata: dict[str, Any] | None) -> str | None:
    cur = await conn.execute(
        "update storage.objects set owner = %s::uuid, owner_id = %s, version = %s, metadata = %s,"
        " user_metadata = %s, updated_at = now(), last_accessed_at = now()"
        " where bucket_id = %s and name = %s returning id",
        [_uuid_or_none(owner), owner, version, Jsonb(metadata), _jsonb(user_metadata), bucket_id, name],
    )
    row = await cur.fetchone()
    return str(row[0]) if row else None


async def rename_object(conn: AsyncConnection, bucket_id: str, name: str, old_version: str | None,
                        new_bucket: str, new_name: str, version: str) -> bool:
    """Move a row, only if it still points at the bytes that were copied (`old_version`)."""
    cur = await conn.execute(
        "update storage.objects set bucket_id = %s, name = %s, version = %s, updated_at = now()"
        " where bucket_id = %s and name = %s and version is not distinct from %s returning id",
        [new_bucket, new_name, version, bucket_id, name, old_version],
    )
    return await cur.fetchone() is not None


async def delete_object(conn: AsyncConnection, bucket_id: str, name: str) -> str | None:
    cur = await conn.execute("delete from storage.objects where bucket_id = %s and name = %s returning version",
                             [bucket_id, name])
    row = await cur.fetchone()
    return None if row is None else (row[0] or "")


async def delete_objects(conn: AsyncConnection, bucket_id: str, names: list[str]) -> list[dict[str, Any]]:
    query = sql.SQL("delete from storage.objects where bucket_id = %s and name = any(%s) returning {}").format(
        sql.SQL(OBJECT_COLUMNS))
    return await fetch_all(conn, query, [bucket_id, names])


async def search(conn: AsyncConnection, bucket_id: str, prefix: str, limit: int, offset: int, search_text: str,
                 column: str, order: str) -> bytes:
    levels = len(prefix.split("/")) if prefix else 1
    return await fetch_json(
        conn,
        "select coalesce(json_agg(s), '[]')::text from storage.search(%s, %s, %s, %s, %s, %s, %s, %s) s",
        [prefix, bucket_id, limit, levels, offset, search_text, column, order],
    )


V2_COLUMNS = "id, updated_at, created_at, last_accessed_at, metadata, user_metadata"


async def list_v2_flat(conn: AsyncConnection, bucket_id: str, prefix: str, limit: int, column: str | None,
                       descending: bool, token: str, after: str | None) -> list[dict[str, Any]]:
    """list-v2 without a delimiter, as storage-api's query: names LIKE prefix || '%' (its
    wildcards included), ordered by the date column if any then by name (bytewise), the
    cursor compared as (date to the ms, name) when a date column sorts."""
    direction = sql.SQL("desc" if descending else "asc")
    compare = sql.SQL("<" if descending else ">")
    clauses: list[sql.Composable] = [sql.SQL("bucket_id = %(bucket)s")]
    if prefix:
        clauses.append(sql.SQL("name like %(prefix)s || '%%'"))
    if token and column and after:
        clauses.append(sql.SQL(
            "row(date_trunc('milliseconds', {col}), name collate \"C\") {cmp}"
            " row(coalesce(nullif(%(after)s, '')::timestamptz, 'epoch'::timestamptz), %(token)s)"
        ).format(col=sql.Identifier(column), cmp=compare))
    elif token:
        clauses.append(sql.SQL("name collate \"C\" {} %(token)s").format(compare))
    order: list[sql.Composable] = [sql.SQL("{} {}").format(sql.Identifier(column), direction)] if column else []
    order.append(sql.SQL("name collate \"C\" {}").format(direction))
    query = sql.SQL("select id, name, metadata, updated_at, created_at, last_accessed_at from storage.objects"
                    " where {where} order by {order} limit %(limit)s").format(
        where=sql.SQL(" and ").join(clauses), order=sql.SQL(", ").join(order))
    return await fetch_all(conn, query, {"bucket": bucket_id, "prefix": prefix, "token": token, "after": after,
                                         "limit": limit})


async def list_v2_by_name(conn: AsyncConnection, bucket_id: str, prefix: str, limit: int, descending: bool,
                          start_after: str, levels: int) -> list[dict[str, Any]]:
    """list-v2 with the '/' delimiter sorted by name, as storage.search_v2 walks it: a
    folder (`prefix` + segment, no slash) stands where its first key sorts (`folder/`),
    bytewise. The cursor is a folder when keys lie under it (skip the folder), else a key
    (continue after `key/` ascending, before `key` descending)."""
    direction = sql.SQL("desc" if descending else "asc")
    if descending:
        seek = sql.SQL("o.name collate \"C\" < (%(after)s || case when (select folder from cursor) then '/' else '' end)")
    else:
        seek = sql.SQL("o.name collate \"C\" >= (%(after)s || case when (select folder from cursor) then '0' else '/' end)")
    query = sql.SQL(
        "with cursor as (select exists (select 1 from storage.objects c where c.bucket_id = %(bucket)s"
        "   and c.name collate \"C\" like %(after)s || '/%%') as folder),"
        " candidates as (select o.*, strpos(substr(o.name, length(%(prefix)s) + 1), '/') as cut"
        "   from storage.objects o where o.bucket_id = %(bucket)s and starts_with(o.name, %(prefix)s)"
        "   and (%(after)s = '' or {seek})),"
        " entries as ("
        "   select distinct left(name, length(%(prefix)s) + cut - 1) as name, null::uuid as id,"
        "     null::timestamptz as updated_at, null::timestamptz as created_at,"
        "     null::timestamptz as last_accessed_at, null::jsonb as metadata, null::jsonb as user_metadata, true as folder"
        "   from candidates where cut > 0"
        "   union all"
        "   select name, {cols}, false from candidates where cut = 0)"
        " select split_part(name, '/', %(levels)s) as key, name, {cols} from entries"
        " order by (case when folder then name || '/' else name end) collate \"C\" {dir} limit %(limit)s"
    ).format(seek=seek, cols=sql.SQL(V2_COLUMNS), dir=direction)
    return await fetch_all(conn, query, {"bucket": bucket_id, "prefix": prefix, "after": start_after,
                                         "levels": levels, "limit": limit})


async def list_v2_by_date(conn: AsyncConnection, bucket_id: str, prefix: str, limit: int, descending: bool,
                          column: str, start_after: str, after: str | None, levels: int) -> list[dict[str, Any]]:
    """list-v2 with the delimiter sorted by created_at or updated_at, as storage-api's
    search_by_timestamp: a folder's dates are its oldest key's created_at; the cursor is
    (date to the ms, name), the order (date to the ms, epoch for none; name bytewise)."""
    direction = sql.SQL("desc" if descending else "asc")
    query = sql.SQL(
        "with raw as (select o.*, case when strpos(substr(o.name, length(%(prefix)s) + 1), '/') > 0"
        "   then left(o.name, length(%(prefix)s) + strpos(substr(o.name, length(%(prefix)s) + 1), '/')) end as common"
        "   from storage.objects o where o.bucket_id = %(bucket)s and o.name collate \"C\" like %(prefix)s || '%%'),"
        " combined as ("
        "   select rtrim(common, '/') as name, null::uuid as id, min(created_at) as updated_at,"
        "     min(created_at) as created_at, null::timestamptz as last_accessed_at, null::jsonb as metadata,"
        "     null::jsonb as user_metadata from raw where common is not null group by common"
        "   union all"
        "   select name, {cols} from raw where common is null)"
        " select split_part(name, '/', %(levels)s) as key, name, {cols} from combined"
        " where (%(start)s = '' or row(date_trunc('milliseconds', {col}), name collate \"C\") {cmp}"
        "   row(coalesce(nullif(%(after)s, '')::timestamptz, 'epoch'::timestamptz), %(start)s))"
        " order by coalesce(date_trunc('milliseconds', {col}), 'epoch'::timestamptz) {dir},"
        "   name collate \"C\" {dir} limit %(limit)s"
    ).format(cols=sql.SQL(V2_COLUMNS), col=sql.Identifier(column), cmp=sql.SQL("<" if descending else ">"),
             dir=direction)
    return await fetch_all(conn, query, {"bucket": bucket_id, "prefix": prefix, "start": start_after,
                                         "after": after, "levels": levels, "limit": limit})


async def _returned_id(cur: AsyncCursor[Any]) -> str:
    """The id an INSERT ... RETURNING wrote: one row, or the statement raised."""
    row = await cur.fetchone()
    if row is None:
        raise RuntimeError("INSERT ... RETURNING id returned no row")
    return str(row[0])


def _uuid_or_none(value: str | None) -> str | None:
    if not value:
        return None
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


def _jsonb(value: dict[str, Any] | None) -> Jsonb | None:
    return None if value is None else Jsonb(value)
