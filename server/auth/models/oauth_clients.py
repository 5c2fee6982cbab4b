"""The auth.oauth_clients table: the OAuth 2.1 server's clients (soft-deleted, as GoTrue's)."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection, sql
from psycopg.rows import dict_row

_COLUMNS = sql.SQL("id, client_secret_hash, registration_type::text, client_type::text, redirect_uris, grant_types,"
                   " client_name, client_uri, logo_uri, token_endpoint_auth_method, created_at, updated_at")


async def _fetch(conn: AsyncConnection, query: sql.Composed, params: list[Any]) -> list[dict[str, Any]]:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(query, params)
        return await cur.fetchall()


async def insert(conn: AsyncConnection, *, secret_hash: str | None, registration_type: str, client_type: str,
                 redirect_uris: str, grant_types: str, client_name: str | None, client_uri: str | None,
                 logo_uri: str | None, auth_method: str) -> dict[str, Any]:
    """The new client's row."""
    query = sql.SQL(
        "insert into auth.oauth_clients (id, client_secret_hash, registration_type, client_type, redirect_uris,"
        " grant_types, client_name, client_uri, logo_uri, token_endpoint_auth_method)"
        " values (%s, %s, %s::auth.oauth_registration_type, %s, %s, %s, %s, %s, %s, %s) returning {}").format(_COLUMNS)
    rows = await _fetch(conn, query, [uuid.uuid4(), secret_hash, registration_type, client_type, redirect_uris,
                                      grant_types, client_name, client_uri, logo_uri, auth_method])
    return rows[0]


async def count(conn: AsyncConnection) -> int:
    cur = await conn.execute("select count(*) from auth.oauth_clients where deleted_at is null")
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


async def page(conn: AsyncConnection, limit: int | None, offset: int) -> list[dict[str, Any]]:
    """The clients, newest first (`limit` None: all of them)."""
    query = sql.SQL("select {} from auth.oauth_clients where deleted_at is null order by created_at desc, id"
                    " limit %s offset %s").format(_COLUMNS)
    return await _fetch(conn, query, [limit, offset])


async def by_id(conn: AsyncConnection, client_id: uuid.UUID, *, lock: bool = False) -> dict[str, Any] | None:
    query = sql.SQL("select {} from auth.oauth_clients where id = %s and deleted_at is null{}").format(
        _COLUMNS, sql.SQL(" for update") if lock else sql.SQL(""))
    rows = await _fetch(conn, query, [client_id])
    return rows[0] if rows else None


async def update(conn: AsyncConnection, client_id: uuid.UUID, fields: dict[str, Any]) -> dict[str, Any]:
    """The client with `fields` (column: value) set; its row."""
    assignments = sql.SQL(", ").join(sql.SQL("{} = %s").format(sql.Identifier(key)) for key in fields)
    query = sql.SQL("update auth.oauth_clients set {}, updated_at = now() where id = %s returning {}").format(
        assignments, _COLUMNS)
    return (await _fetch(conn, query, [*fields.values(), client_id]))[0]


async def set_secret_hash(conn: AsyncConnection, client_id: uuid.UUID, secret_hash: str) -> dict[str, Any]:
    query = sql.SQL("update auth.oauth_clients set client_secret_hash = %s, updated_at = now() where id = %s"
                    " returning {}").format(_COLUMNS)
    return (await _fetch(conn, query, [secret_hash, client_id]))[0]


async def delete(conn: AsyncConnection, client_id: uuid.UUID) -> None:
    """A soft delete, as GoTrue's."""
    await conn.execute("update auth.oauth_clients set deleted_at = now(), updated_at = now() where id = %s",
                       [client_id])
