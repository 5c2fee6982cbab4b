"""The auth.mfa_factors table: the users' MFA factors (TOTP, phone, WebAuthn)."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, TypedDict, cast

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


class FactorRow(TypedDict):
    id: uuid.UUID
    user_id: uuid.UUID
    friendly_name: str | None
    factor_type: str
    status: str
    created_at: datetime
    updated_at: datetime
    secret: str | None
    phone: str | None
    last_challenged_at: datetime | None
    web_authn_credential: Any
    web_authn_aaguid: uuid.UUID | None
    last_webauthn_challenge_data: Any


async def owned(conn: AsyncConnection, user_id: uuid.UUID, factor_id: uuid.UUID) -> FactorRow | None:
    """The user's factor, locked for update; None when the user has no such factor."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("select * from auth.mfa_factors where id = %s and user_id = %s for update", [factor_id, user_id])
        return cast("FactorRow | None", await cur.fetchone())


async def by_id(conn: AsyncConnection, factor_id: uuid.UUID) -> FactorRow | None:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("select * from auth.mfa_factors where id = %s", [factor_id])
        return cast("FactorRow | None", await cur.fetchone())


async def of_user(conn: AsyncConnection, user_id: uuid.UUID) -> list[FactorRow]:
    """The user's factors, oldest first."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("select * from auth.mfa_factors where user_id = %s order by created_at, id", [user_id])
        return cast("list[FactorRow]", await cur.fetchall())


async def has_verified(conn: AsyncConnection, user_id: uuid.UUID) -> bool:
    """The user has a verified factor."""
    cur = await conn.execute("select 1 from auth.mfa_factors where user_id = %s and status = 'verified' limit 1",
                             [user_id])
    return await cur.fetchone() is not None


async def name_taken(conn: AsyncConnection, user_id: uuid.UUID, name: str, besides: uuid.UUID) -> bool:
    """Another factor of the user has this friendly name."""
    cur = await conn.execute("select 1 from auth.mfa_factors where user_id = %s and friendly_name = %s and id <> %s",
                             [user_id, name, besides])
    return await cur.fetchone() is not None


async def insert(conn: AsyncConnection, user_id: uuid.UUID, *, factor_type: str, friendly_name: str,
                 secret: str | None, phone: str | None) -> FactorRow:
    """A new unverified factor's row."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, created_at, updated_at,"
            " secret, phone) values (%s, %s, %s, %s, 'unverified', now(), now(), %s, %s) returning *",
            [uuid.uuid4(), user_id, friendly_name, factor_type, secret, phone])
        row = await cur.fetchone()
    assert row is not None
    return cast("FactorRow", row)


async def delete_abandoned(conn: AsyncConnection, age_seconds: float) -> None:
    """Unverified factors never challenged, older than `age_seconds` (GoTrue's FactorExpiryDuration)."""
    await conn.execute(
        "delete from auth.mfa_factors f where f.status <> 'verified'"
        " and not exists (select 1 from auth.mfa_challenges c where c.factor_id = f.id)"
        " and f.created_at + make_interval(secs => %s) < now()", [age_seconds])


async def verified(conn: AsyncConnection, factor_id: uuid.UUID) -> None:
    await conn.execute("update auth.mfa_factors set status = 'verified', updated_at = now() where id = %s", [factor_id])


async def rename(conn: AsyncConnection, factor_id: uuid.UUID, name: str) -> None:
    await conn.execute("update auth.mfa_factors set friendly_name = %s, updated_at = now() where id = %s",
                       [name, factor_id])


async def set_phone(conn: AsyncConnection, factor_id: uuid.UUID, phone: str) -> None:
    await conn.execute("update auth.mfa_factors set phone = %s, updated_at = now() where id = %s", [phone, factor_id])


async def set_webauthn_credential(conn: AsyncConnection, factor_id: uuid.UUID, credential: dict[str, Any],
                                  aaguid: uuid.UUID) -> None:
    await conn.execute(
        "update auth.mfa_factors set web_authn_credential = %s, web_authn_aaguid = %s, updated_at = now()"
        " where id = %s", [Jsonb(credential), aaguid, factor_id])


async def set_last_webauthn_challenge(conn: AsyncConnection, factor_id: uuid.UUID, data: dict[str, Any]) -> None:
    await conn.execute("update auth.mfa_factors set last_webauthn_challenge_data = %s, updated_at = now() where id = %s",
                       [Jsonb(data), factor_id])


async def advance_sign_count(conn: AsyncConnection, factor_id: uuid.UUID, stored: int, new: int) -> bool:
    """The WebAuthn credential's sign count moved from `stored` to `new`; False when another
    verify moved it first."""
    cur = await conn.execute(
        "update auth.mfa_factors set web_authn_credential = jsonb_set(web_authn_credential,"
        " '{authenticator,signCount}', to_jsonb(%s::bigint)), updated_at = now() where id = %s"
        " and coalesce((web_authn_credential #>> '{authenticator,signCount}')::bigint, 0) = %s returning id",
        [new, factor_id, stored])
    return await cur.fetchone() is not None


async def delete(conn: AsyncConnection, factor_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.mfa_factors where id = %s", [factor_id])


async def delete_many(conn: AsyncConnection, factor_ids: list[uuid.UUID]) -> None:
    await conn.execute("delete from auth.mfa_factors where id = any(%s)", [factor_ids])


async def delete_unverified(conn: AsyncConnection, user_id: uuid.UUID, factor_type: str) -> None:
    """The user's unverified factors of this type."""
    await conn.execute("delete from auth.mfa_factors where user_id = %s and status = 'unverified' and factor_type = %s",
                       [user_id, factor_type])
