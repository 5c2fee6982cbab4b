"""How long sessions live and how many a user may hold (GoTrue's sessions.* settings).

GoTrue decides a session's validity at refresh time (models.Session.CheckValidity): past
`not_after`, past `created_at + timebox`, or idle longer than `inactivity_timeout` since its
last refresh. Here the same rules also keep `not_after` up to date (the moment the session
will end if nothing happens), so that everything reading auth.sessions in SQL, the session
limit and the app's device list alike, tells live sessions from ended ones without knowing
the settings.

When the auth service itself ends sessions it names why in the transaction-local setting
`auth.session_end_reason` (logout, evicted, expired, password_changed), for triggers that
want to tell the ended device.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from psycopg import AsyncConnection, sql

from server.core.config import Settings
from server.core.context import AppContext

# GoTrue's cleanup keeps ended sessions for a day so that a late refresh still hears
# "Session Expired" rather than "Refresh Token Not Found".
SWEEP_AFTER = timedelta(hours=24)
SWEEP_BATCH = 10
BACKFILL_BATCH = 100
# When the session was last used: its last refresh, else its creation (LastRefreshedAt).
LAST_REFRESHED = sql.SQL("coalesce(s.refreshed_at at time zone 'utc', s.created_at)")
LIVE = sql.SQL("(s.not_after is null or s.not_after > now())")


def timebox(settings: Settings) -> timedelta | None:
    return timedelta(seconds=settings.sessions_timebox) if settings.sessions_timebox > 0 else None


def inactivity(settings: Settings) -> timedelta | None:
    seconds = settings.sessions_inactivity_timeout
    return timedelta(seconds=seconds) if seconds > 0 else None


def limited(settings: Settings) -> bool:
    return timebox(settings) is not None or inactivity(settings) is not None


def not_after_sql(last_refreshed: sql.Composable = LAST_REFRESHED) -> sql.Composable:
    """The end of a session `s` under %(timebox)s / %(inactivity)s (least() skips nulls)."""
    return sql.SQL("least(s.created_at + %(timebox)s::interval, {} + %(inactivity)s::interval)").format(last_refreshed)


def lifetime_params(settings: Settings) -> dict[str, timedelta | None]:
    return {"timebox": timebox(settings), "inactivity": inactivity(settings)}


async def end_reason(conn: AsyncConnection, reason: str) -> None:
    await conn.execute("select set_config('auth.session_end_reason', %s, true)", [reason])


async def refresh_user_expiry(ctx: AppContext, conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """Recompute the end of the user's sessions under the current settings (they may have changed)."""
    if not limited(ctx.settings):
        return
    await conn.execute(
        sql.SQL("update auth.sessions s set not_after = {} where s.user_id = %(uid)s").format(not_after_sql()),
        {**lifetime_params(ctx.settings), "uid": user_id})


async def sweep(ctx: AppContext, conn: AsyncConnection) -> None:
    """GoTrue's piecemeal cleanup: delete a few sessions ended more than a day ago. Also gives
    an end to a batch of sessions opened before the time box or inactivity timeout was set,
    so that devices forgotten then end as well."""
    if limited(ctx.settings):
        await conn.execute(
            sql.SQL("update auth.sessions s set not_after = {} where s.id in"
                    " (select id from auth.sessions where not_after is null limit %(batch)s for update skip locked)"
                    ).format(not_after_sql()),
            {**lifetime_params(ctx.settings), "batch": BACKFILL_BATCH})
    await end_reason(conn, "expired")
    await conn.execute(
        "delete from auth.sessions where id in (select id from auth.sessions where not_after < now() - %s"
        " limit %s for update skip locked)", [SWEEP_AFTER, SWEEP_BATCH])
    await end_reason(conn, "")


async def live_count(conn: AsyncConnection, user_id: uuid.UUID) -> int:
    cur = await conn.execute(sql.SQL("select count(*) from auth.sessions s where s.user_id = %s and {}").format(LIVE),
                             [user_id])
    row = await cur.fetchone()
    return int(row[0]) if row else 0


async def lock_user(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """Serialise session starts of one user, so two concurrent sign-ins cannot both pass the count."""
    await conn.execute("select 1 from auth.users where id = %s for no key update", [user_id])


async def evict_least_recently_used(ctx: AppContext, conn: AsyncConnection, user_id: uuid.UUID) -> int:
    """Make room for one more session under the limit by ending the least recently refreshed
    live sessions; answers how many were ended (0 when there was room)."""
    limit = ctx.settings.max_sessions_per_user
    if limit <= 0:
        return 0
    await lock_user(conn, user_id)
    await refresh_user_expiry(ctx, conn, user_id)
    excess = await live_count(conn, user_id) - limit + 1
    if excess <= 0:
        return 0
    await end_reason(conn, "evicted")
    cur = await conn.execute(
        sql.SQL("delete from auth.sessions where id in (select s.id from auth.sessions s where s.user_id = %s and {}"
                " order by {}, s.created_at limit %s) returning id").format(LIVE, LAST_REFRESHED), [user_id, excess])
    ended = len(await cur.fetchall())
    await end_reason(conn, "")
    return ended
