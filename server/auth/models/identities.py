"""The auth.identities table: a user's ways in (e-mail, phone, an external provider's subject)."""

from __future__ import annotations

import uuid
from typing import Any

import psycopg
from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from server.auth.errors import internal


async def create(conn: AsyncConnection, user_id: uuid.UUID, provider: str, identity_data: dict[str, Any]) -> uuid.UUID:
    """A new identity, its provider id the data's `sub`; a duplicate answers GoTrue's 500."""
    try:
        async with conn.transaction():
            cur = await conn.execute(
                "insert into auth.identities (provider_id, user_id, identity_data, provider, last_sign_in_at,"
                " created_at, updated_at) values (%s, %s, %s, %s, now(), now(), now()) returning id",
                [str(identity_data.get("sub", "")), user_id, Jsonb(identity_data), provider])
            row = await cur.fetchone()
    except psycopg.IntegrityError:
        raise internal("Error creating identity") from None
    assert row is not None
    return uuid.UUID(str(row[0]))


async def upsert_email(conn: AsyncConnection, user_id: uuid.UUID, identity_data: dict[str, Any]) -> None:
    """The user's e-mail identity, created or its data merged with `identity_data`."""
    await conn.execute(
        "insert into auth.identities (provider_id, user_id, identity_data, provider, created_at, updated_at)"
        " values (%s, %s, %s, 'email', now(), now()) on conflict (provider_id, provider)"
        " do update set identity_data = auth.identities.identity_data || excluded.identity_data, updated_at = now()",
        [str(user_id), user_id, Jsonb(identity_data)])


async def by_subject(conn: AsyncConnection, provider: str, sub: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    """(identity id, user id) of the identity (provider, sub)."""
    cur = await conn.execute("select id, user_id from auth.identities where provider_id = %s and provider = %s",
                             [sub, provider])
    row = await cur.fetchone()
    return (row[0], row[1]) if row else None


async def users_with_emails(conn: AsyncConnection, emails: list[str]) -> list[uuid.UUID]:
    """The users with a non-SSO identity of one of these addresses."""
    cur = await conn.execute("select distinct user_id from auth.identities where email = any(%s)"
                             " and provider not like 'sso:%%'", [emails])
    return [row[0] for row in await cur.fetchall()]


async def email_held(conn: AsyncConnection, email: str) -> bool:
    """A non-SSO identity has this address."""
    cur = await conn.execute("select 1 from auth.identities where email = %s and provider not like 'sso:%%' limit 1",
                             [email])
    return await cur.fetchone() is not None


async def emails_of_user(conn: AsyncConnection, user_id: uuid.UUID) -> list[tuple[str, bool]]:
    """(address, verified) of the user's identities: verified ones first, then unverified, then none."""
    cur = await conn.execute(
        "select coalesce(email, ''), coalesce((identity_data->>'email_verified')::boolean, false)"
        " from auth.identities where user_id = %s"
        " order by case when coalesce(email, '') = '' then 2"
        "   when coalesce((identity_data->>'email_verified')::boolean, false) then 0 else 1 end, created_at, id",
        [user_id])
    return [(str(email), bool(verified)) for email, verified in await cur.fetchall()]


async def signed_in_with(conn: AsyncConnection, identity_id: uuid.UUID, identity_data: dict[str, Any]) -> None:
    """The provider's latest data on the identity, and its sign-in time."""
    await conn.execute("update auth.identities set identity_data = %s, last_sign_in_at = now(),"
                       " updated_at = now() where id = %s", [Jsonb(identity_data), identity_id])


async def set_email(conn: AsyncConnection, user_id: uuid.UUID, email: str) -> None:
    """The user's e-mail identity's address."""
    await conn.execute("update auth.identities set identity_data = identity_data || jsonb_build_object('email', %s::text)"
                       " where user_id = %s and provider = 'email'", [email, user_id])


async def set_phone(conn: AsyncConnection, user_id: uuid.UUID, phone: str) -> bool:
    """The user's phone identity's number, verified; False when the user has none."""
    updated = await conn.execute(
        "update auth.identities set identity_data = identity_data || jsonb_build_object('phone', %s::text,"
        " 'phone_verified', true), updated_at = now() where provider_id = %s and provider = 'phone'",
        [phone, str(user_id)])
    return updated.rowcount != 0


async def delete(conn: AsyncConnection, identity_id: uuid.UUID, user_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.identities where id = %s and user_id = %s", [identity_id, user_id])


async def delete_others(conn: AsyncConnection, user_id: uuid.UUID, kept: uuid.UUID) -> None:
    """Every identity of the user but `kept`."""
    await conn.execute("delete from auth.identities where user_id = %s and id <> %s", [user_id, kept])


async def delete_of_user(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.identities where user_id = %s", [user_id])
