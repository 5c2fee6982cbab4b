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


async def list_buckets(conn: AsyncConnection, limit: int | None, offset: int, search: str,
                       column: str, order: str) -> bytes:
    query = sql.SQL(
        "select coalesce(json_agg(b), '[]')::text from ("
        " select {cols} from storage.buckets where name ilike '%%' || %s || '%%'"
        " order by {col} {order} limit %s offset %s) b"
    ).format(cols=sql.SQL(BUCKET_COLUMNS), col=sql.Identifier(column if column in BUCKET_SORT else "name"),
             order=sql.SQL("desc" if order == "desc" else "asc"))
    return await fetch_json(conn, query, [search, limit, offset])


async def insert_bucket(conn: AsyncConnection, values: NewBucket, owner: str | None) -> None:
    await conn.execute(
        "insert into storage.buckets (id, name, owner, owner_id, public, file_size_limit, allowed_mime_types)"
        " values (%s, %s, %s::uuid, %s, %s, %s, %s)",
        [values["id"], values["name"], _uuid_or_none(owner), owner, values["public"],
         values["file_size_limit"], values["allowed_mime_types"]],
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


async def list_v2(conn: AsyncConnection, bucket_id: str, prefix: str, delimited: bool, start_after: str,
                  limit: int, descending: bool) -> list[dict[str, Any]]:
    """One page of keys under prefix, sorted by name; with the delimiter, deeper names fold
    into one `prefix/sub/` folder entry (id null)."""
    order = sql.SQL("desc" if descending else "asc")
    compare = sql.SQL("<" if descending else ">")
    query = sql.SQL(
        "with matching as ("
        "  select o.*, case when {delim} and strpos(substr(o.name, length({p}) + 1), '/') > 0"
        "    then {p} || split_part(substr(o.name, length({p}) + 1), '/', 1) || '/' else o.name end as entry"
        "  from storage.objects o where o.bucket_id = {b} and starts_with(o.name, {p})),"
        " entries as ("
        "  select entry as name, bool_or(entry <> name) as folder, min(id::text) as any_id from matching group by entry)"
        " select e.name, o.id, o.updated_at, o.created_at, o.last_accessed_at, o.metadata"
        " from entries e left join matching o on not e.folder and o.name = e.name"
        " where ({after} = '' or e.name {cmp} {after})"
        " order by e.name {order} limit {limit}"
    ).format(delim=sql.Placeholder("delim"), p=sql.Placeholder("prefix"), b=sql.Placeholder("bucket"),
             after=sql.Placeholder("after"), cmp=compare, order=order, limit=sql.Placeholder("limit"))
    return await fetch_all(conn, query, {"delim": delimited, "prefix": prefix, "bucket": bucket_id,
                                         "after": start_after, "limit": limit})


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
