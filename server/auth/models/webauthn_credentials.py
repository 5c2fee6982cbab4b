"""The auth.webauthn_credentials table: the passkeys users registered."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


async def of_user(conn: AsyncConnection, user_id: uuid.UUID) -> list[dict[str, Any]]:
    """id, friendly_name, created_at and last_used_at of the user's passkeys, oldest first."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("select id, friendly_name, created_at, last_used_at from auth.webauthn_credentials"
                          " where user_id = %s order by created_at, id", [user_id])
        return await cur.fetchall()


async def credential_ids(conn: AsyncConnection, user_id: uuid.UUID) -> list[bytes]:
    cur = await conn.execute("select credential_id from auth.webauthn_credentials where user_id = %s"
                             " order by created_at", [user_id])
    return [bytes(row[0]) for row in await cur.fetchall()]


async def count(conn: AsyncConnection, user_id: uuid.UUID) -> int:
    cur = await conn.execute("select count(*) from auth.webauthn_credentials where user_id = %s", [user_id])
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0


async def insert(conn: AsyncConnection, user_id: uuid.UUID, *, credential_id: bytes, public_key: bytes,
                 attestation_type: str, aaguid: str | None, sign_count: int, transports: list[str],
                 backup_eligible: bool, backed_up: bool, friendly_name: str) -> dict[str, Any] | None:
    """The new passkey's id, friendly_name and created_at; None when its credential id is registered already."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "insert into auth.webauthn_credentials (user_id, credential_id, public_key, attestation_type, aaguid,"
            " sign_count, transports, backup_eligible, backed_up, friendly_name)"
            " values (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " on conflict (credential_id) do nothing returning id, friendly_name, created_at",
            [user_id, credential_id, public_key, attestation_type, aaguid, sign_count, Jsonb(transports),
             backup_eligible, backed_up, friendly_name])
        return await cur.fetchone()


async def for_sign_in(conn: AsyncConnection, credential_id: bytes, user_id: uuid.UUID) -> tuple[uuid.UUID, bytes, int] | None:
    """(id, public key, sign count) of the user's credential, locked for its new count."""
    cur = await conn.execute(
        "select id, public_key, sign_count from auth.webauthn_credentials"
        " where credential_id = %s and user_id = %s for update", [credential_id, user_id])
    row = await cur.fetchone()
    return (row[0], bytes(row[1]), int(row[2])) if row is not None else None


async def used(conn: AsyncConnection, passkey_id: uuid.UUID, sign_count: int) -> None:
    await conn.execute("update auth.webauthn_credentials set sign_count = %s, last_used_at = now(), updated_at = now()"
                       " where id = %s", [sign_count, passkey_id])


async def rename(conn: AsyncConnection, passkey_id: uuid.UUID, user_id: uuid.UUID, name: str) -> dict[str, Any] | None:
    """The user's passkey renamed: id, friendly_name, created_at, last_used_at; None when not theirs."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "update auth.webauthn_credentials set friendly_name = %s, updated_at = now()"
            " where id = %s and user_id = %s returning id, friendly_name, created_at, last_used_at",
            [name, passkey_id, user_id])
        return await cur.fetchone()


async def delete(conn: AsyncConnection, passkey_id: uuid.UUID, user_id: uuid.UUID) -> bool:
    """The user's passkey deleted; False when not theirs."""
    cur = await conn.execute("delete from auth.webauthn_credentials where id = %s and user_id = %s returning id",
                             [passkey_id, user_id])
    return await cur.fetchone() is not None
