"""The auth.refresh_tokens table: each session's chain of refresh tokens (a token's `parent` is the one it replaced)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

from server.auth.models.users import INSTANCE_ID


async def for_refresh(conn: AsyncConnection, token: str, reuse_interval: timedelta,
                      lifetime: dict[str, Any]) -> dict[str, Any] | None:
    """The token and its session, both locked, with what a refresh checks: in_reuse_window,
    past_not_after, past_timebox and timed_out (`lifetime`: the sessions' timebox and
    inactivity intervals). A session's last activity is its last refresh, else the later of
    its creation and the token's last change (GoTrue's LastRefreshedAt)."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "select rt.id, rt.token, rt.revoked, rt.updated_at + %(reuse)s > now() as in_reuse_window, rt.session_id,"
            " s.user_id, s.not_after is not null and s.not_after <= now() as past_not_after,"
            " coalesce(s.created_at + %(timebox)s::interval <= now(), false) as past_timebox,"
            " coalesce(coalesce(s.refreshed_at at time zone 'utc', greatest(s.created_at, rt.updated_at))"
            "   + %(inactivity)s::interval <= now(), false) as timed_out"
            " from auth.refresh_tokens rt join auth.sessions s on s.id = rt.session_id"
            " where rt.token = %(token)s for update of rt, s",
            {"reuse": reuse_interval, "token": token, **lifetime})
        return await cur.fetchone()


async def latest_active(conn: AsyncConnection, session_id: uuid.UUID) -> tuple[str, str | None] | None:
    """(token, parent) of the session's newest unrevoked token."""
    cur = await conn.execute(
        "select token, parent from auth.refresh_tokens where session_id = %s and not revoked order by id desc limit 1",
        [session_id])
    row = await cur.fetchone()
    return (row[0], row[1]) if row is not None else None


async def rotate(conn: AsyncConnection, old_id: int, parent: str, token: str, user_id: uuid.UUID,
                 session_id: uuid.UUID) -> None:
    """The token `old_id` revoked, and `token` (its child) issued."""
    await conn.execute(
        "with old as (update auth.refresh_tokens set revoked = true, updated_at = now() where id = %(id)s)"
        " insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)"
        " values (%(instance)s, %(token)s, %(uid)s, false, now(), now(), %(parent)s, %(sid)s)",
        {"id": old_id, "instance": INSTANCE_ID, "token": token, "uid": str(user_id), "parent": parent,
         "sid": session_id})


async def swap(conn: AsyncConnection, session_id: uuid.UUID, user_id: uuid.UUID, token: str) -> None:
    """The session's current token revoked and `token` issued in its place."""
    await conn.execute(
        "with cur_token as (select id, token from auth.refresh_tokens where session_id = %(sid)s and not revoked"
        "   order by id desc limit 1 for update),"
        " revoked as (update auth.refresh_tokens r set revoked = true, updated_at = now()"
        "   from cur_token where r.id = cur_token.id)"
        " insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id)"
        " values (%(instance)s, %(token)s, %(uid)s, false, now(), now(), (select token from cur_token), %(sid)s)",
        {"sid": session_id, "instance": INSTANCE_ID, "token": token, "uid": str(user_id)})
