"""The auth.sessions table: looking sessions up, their assurance level, ending them."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from psycopg import AsyncConnection, sql

from server.auth.models.users import INSTANCE_ID

# When a session `s` was last used: its last refresh, else its creation (GoTrue's LastRefreshedAt).
LAST_REFRESHED = sql.SQL("coalesce(s.refreshed_at at time zone 'utc', s.created_at)")
LIVE = sql.SQL("(s.not_after is null or s.not_after > now())")


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


async def start(conn: AsyncConnection, session_id: uuid.UUID, user_id: uuid.UUID, *, user_agent: str | None,
                ip: str | None, method: str, refresh_token: str, lifetime: dict[str, Any]) -> tuple[datetime, datetime, int]:
    """A new aal1 session, its first amr entry and refresh token, and the user's sign-in time,
    in one statement (`lifetime`: the sessions' timebox and inactivity intervals, for not_after).
    The user's new last_sign_in_at and updated_at, and the time as unix seconds."""
    cur = await conn.execute(
        "with s as (insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip, not_after)"
        "   values (%(sid)s, %(uid)s, now(), now(), 'aal1', %(ua)s, %(ip)s::inet,"
        "           least(now() + %(timebox)s::interval, now() + %(inactivity)s::interval)) returning id),"
        " a as (insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)"
        "   select id, now(), now(), %(method)s, gen_random_uuid() from s),"
        " r as (insert into auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, session_id)"
        "   select %(instance)s, %(token)s, %(uid)s::text, false, now(), now(), id from s)"
        " update auth.users set last_sign_in_at = now(), updated_at = now() where id = %(uid)s"
        " returning last_sign_in_at, updated_at, extract(epoch from now())::bigint",
        {"sid": session_id, "uid": user_id, "ua": user_agent, "ip": ip, "method": method, "instance": INSTANCE_ID,
         "token": refresh_token, **lifetime},
    )
    row = await cur.fetchone()
    assert row is not None
    return row[0], row[1], int(row[2])


async def refreshed(conn: AsyncConnection, session_id: uuid.UUID, *, user_agent: str | None, ip: str | None,
                    not_after: sql.Composable, lifetime: dict[str, Any]) -> None:
    """The session refreshed now, from this client; its end set to `not_after` (SQL over `s`)."""
    await conn.execute(
        sql.SQL("update auth.sessions s set refreshed_at = now() at time zone 'utc', updated_at = now(),"
                " user_agent = %(ua)s, ip = %(ip)s::inet, not_after = {} where s.id = %(sid)s").format(not_after),
        {"ua": user_agent, "ip": ip, "sid": session_id, **lifetime})


async def set_not_after_of_user(conn: AsyncConnection, user_id: uuid.UUID, not_after: sql.Composable,
                                lifetime: dict[str, Any]) -> None:
    """The end of each of the user's sessions set to `not_after` (SQL over `s`)."""
    await conn.execute(sql.SQL("update auth.sessions s set not_after = {} where s.user_id = %(uid)s").format(not_after),
                       {**lifetime, "uid": user_id})


async def backfill_not_after(conn: AsyncConnection, not_after: sql.Composable, lifetime: dict[str, Any],
                             batch: int) -> None:
    """An end (`not_after`, SQL over `s`) for a batch of sessions without one, passing over locked rows."""
    await conn.execute(
        sql.SQL("update auth.sessions s set not_after = {} where s.id in"
                " (select id from auth.sessions where not_after is null limit %(batch)s for update skip locked)"
                ).format(not_after),
        {**lifetime, "batch": batch})


async def delete_ended(conn: AsyncConnection, ended_before: timedelta, batch: int) -> None:
    """A batch of sessions that ended longer ago than `ended_before`, passing over locked rows."""
    await conn.execute(
        "delete from auth.sessions where id in (select id from auth.sessions where not_after < now() - %s"
        " limit %s for update skip locked)", [ended_before, batch])


async def live_count(conn: AsyncConnection, user_id: uuid.UUID) -> int:
    cur = await conn.execute(sql.SQL("select count(*) from auth.sessions s where s.user_id = %s and {}").format(LIVE),
                             [user_id])
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def delete_least_recently_used(conn: AsyncConnection, user_id: uuid.UUID, count: int) -> int:
    """The user's `count` least recently used live sessions ended; how many were."""
    cur = await conn.execute(
        sql.SQL("delete from auth.sessions where id in (select s.id from auth.sessions s where s.user_id = %s and {}"
                " order by {}, s.created_at limit %s) returning id").format(LIVE, LAST_REFRESHED), [user_id, count])
    return len(await cur.fetchall())

