"""The auth.one_time_code_tries table: tries at each user's pending code, per token column."""

from __future__ import annotations

import uuid

from psycopg import AsyncConnection, sql


async def take(conn: AsyncConnection, user_id: uuid.UUID, token_column: str, sent_column: str) -> int | None:
    """One more try at the code of `token_column` (the count starts afresh when the code's send
    time in `sent_column` moved); the tries so far, or None when there is no such user."""
    cur = await conn.execute(
        sql.SQL("insert into auth.one_time_code_tries as t (user_id, token_column, sent_at, tries)"
                " select u.id, %s, u.{sent}, 1 from auth.users u where u.id = %s"
                " on conflict (user_id, token_column) do update set"
                "   tries = case when t.sent_at is not distinct from excluded.sent_at then t.tries + 1 else 1 end,"
                "   sent_at = excluded.sent_at"
                " returning tries").format(sent=sql.Identifier(sent_column)),
        [token_column, user_id])
    row = await cur.fetchone()
    return None if row is None else int(row[0])


async def tries(conn: AsyncConnection, user_id: uuid.UUID, token_column: str) -> int | None:
    cur = await conn.execute("select tries from auth.one_time_code_tries where user_id = %s and token_column = %s",
                             [user_id, token_column])
    row = await cur.fetchone()
    return None if row is None else int(row[0])


async def forget(conn: AsyncConnection, user_id: uuid.UUID, token_columns: list[str]) -> None:
    await conn.execute("delete from auth.one_time_code_tries where user_id = %s and token_column = any(%s)",
                       [user_id, token_columns])
