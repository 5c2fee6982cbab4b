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

from server.auth.models import sessions as session_rows
from server.auth.models import users
from server.core.config import Settings
from server.core.context import AppContext

# GoTrue's cleanup keeps ended sessions for a day so that a late refresh still hears
# "Session Expired" rather than "Refresh Token Not Found".
SWEEP_AFTER = timedelta(hours=24)
SWEEP_BATCH = 10
BACKFILL_BATCH = 100


def timebox(settings: Settings) -> timedelta | None:
    return timedelta(seconds=settings.sessions_timebox) if settings.sessions_timebox > 0 else None


def inactivity(settings: Settings) -> timedelta | None:
    seconds = settings.sessions_inactivity_timeout
    return timedelta(seconds=seconds) if seconds > 0 else None


def limited(settings: Settings) -> bool:
    return timebox(settings) is not None or inactivity(settings) is not None


def not_after_sql(last_refreshed: sql.Composable = session_rows.LAST_REFRESHED) -> sql.Composable:
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
    await session_rows.set_not_after_of_user(conn, user_id, not_after_sql(), lifetime_params(ctx.settings))


async def sweep(ctx: AppContext, conn: AsyncConnection) -> None:
    """GoTrue's piecemeal cleanup: delete a few sessions ended more than a day ago. Also gives
    an end to a batch of sessions opened before the time box or inactivity timeout was set,
    so that devices forgotten then end as well."""
    if limited(ctx.settings):
        await session_rows.backfill_not_after(conn, not_after_sql(), lifetime_params(ctx.settings), BACKFILL_BATCH)
    await end_reason(conn, "expired")
    await session_rows.delete_ended(conn, SWEEP_AFTER, SWEEP_BATCH)
    await end_reason(conn, "")


async def evict_least_recently_used(ctx: AppContext, conn: AsyncConnection, user_id: uuid.UUID) -> int:
    """Make room for one more session under the limit by ending the least recently refreshed
    live sessions; answers how many were ended (0 when there was room)."""
    limit = ctx.settings.max_sessions_per_user
    if limit <= 0:
        return 0
    await users.lock(conn, user_id)  # one session start of the user at a time: concurrent ones count each other
    await refresh_user_expiry(ctx, conn, user_id)
    excess = await session_rows.live_count(conn, user_id) - limit + 1
    if excess <= 0:
        return 0
    await end_reason(conn, "evicted")
    ended = await session_rows.delete_least_recently_used(conn, user_id, excess)
    await end_reason(conn, "")
    return ended
