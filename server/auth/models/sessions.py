"""The auth.sessions table: looking sessions up and ending them."""

from __future__ import annotations

import uuid

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
