"""The auth.one_time_tokens table: the codes and links sent, one row per user and kind."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection


async def save(conn: AsyncConnection, user_id: Any, token_type: str, hashed: str, relates_to: str) -> None:
    """The auth.one_time_tokens row of a code just sent (one per user and type)."""
    await conn.execute(
        "insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)"
        " values (gen_random_uuid(), %s, %s, %s, %s) on conflict (user_id, token_type)"
        " do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()",
        [user_id, token_type, hashed, relates_to])


async def delete_of_user(conn: AsyncConnection, user_id: Any) -> None:
    """Every pending code of the user (one confirmed spends them all)."""
    await conn.execute("delete from auth.one_time_tokens where user_id = %s", [user_id])


async def delete_kind(conn: AsyncConnection, user_id: Any, token_type: str) -> None:
    """The user's pending code of one kind."""
    await conn.execute("delete from auth.one_time_tokens where user_id = %s and token_type = %s", [user_id, token_type])
