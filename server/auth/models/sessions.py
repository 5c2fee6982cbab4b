"""The auth.sessions table: looking sessions up, their assurance level, ending them."""

from __future__ import annotations

import uuid
from datetime import timedelta

from psycopg import AsyncConnection


async def exists(conn: AsyncConnection, session_id: uuid.UUID) -> bool:
    cur = await conn.execute("select 1 from auth.sessions where id = %s", [session_id])
    return await cur.fetchone() is not None


async def delete(conn: AsyncConnection, session_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.sessions where id = %s", [session_id])


async def delete_of_user(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """Every session of the user."""
    await conn.execute("delete from auth.sessions where user_id = %s", [user_id])


async def delete_others(conn: AsyncConnection, user_id: uuid.UUID, kept: uuid.UUID | None) -> None:
    """Every session of the user but `kept` (all of them when `kept` is None)."""
    await conn.execute("delete from auth.sessions where user_id = %s and id is distinct from %s", [user_id, kept])


async def lock(conn: AsyncConnection, session_id: uuid.UUID) -> bool:
    """The session's row locked against deletion; False when it is gone."""
    cur = await conn.execute("select 1 from auth.sessions where id = %s for no key update", [session_id])
    return await cur.fetchone() is not None


async def aal(conn: AsyncConnection, session_id: uuid.UUID) -> str:
    """The session's assurance level (aal2 once an MFA factor was verified in it)."""
    cur = await conn.execute("select aal from auth.sessions where id = %s", [session_id])
    row = await cur.fetchone()
    return str(row[0]) if row and row[0] else "aal1"


async def created_within(conn: AsyncConnection, session_id: uuid.UUID, age: timedelta) -> bool:
    """The session exists and began less than `age` ago."""
    cur = await conn.execute("select created_at + %s > now() from auth.sessions where id = %s", [age, session_id])
    row = await cur.fetchone()
    return row is not None and bool(row[0])


async def raise_to_aal2(conn: AsyncConnection, session_id: uuid.UUID, factor_id: uuid.UUID) -> None:
    """The session verified `factor_id`."""
    await conn.execute("update auth.sessions set aal = 'aal2', factor_id = %s, updated_at = now() where id = %s",
                       [factor_id, session_id])


async def lower_to_aal1(conn: AsyncConnection, user_id: uuid.UUID, factor_id: uuid.UUID) -> None:
    """The sessions `factor_id` raised fall back to aal1 (the factor goes)."""
    await conn.execute("update auth.sessions set aal = 'aal1', factor_id = null where user_id = %s and factor_id = %s",
                       [user_id, factor_id])


async def delete_below_aal2(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """The user's sessions that never reached aal2."""
    await conn.execute("delete from auth.sessions where user_id = %s and (aal is null or aal < 'aal2')", [user_id])
