"""The auth.mfa_totp_guards table: per TOTP factor, its last accepted step and its recent wrong codes."""

from __future__ import annotations

import uuid

from psycopg import AsyncConnection


async def locked(conn: AsyncConnection, factor_id: uuid.UUID, max_failures: int) -> bool:
    """The factor had `max_failures` wrong codes in its current window."""
    cur = await conn.execute(
        "select failures >= %s and failures_until > now() from auth.mfa_totp_guards where factor_id = %s",
        [max_failures, factor_id])
    row = await cur.fetchone()
    return bool(row and row[0])


async def count_failure(conn: AsyncConnection, factor_id: uuid.UUID, window_seconds: float) -> None:
    """One more wrong code in the factor's window (a new window starts after the last ended)."""
    await conn.execute(
        "insert into auth.mfa_totp_guards as g (factor_id, failures, failures_until)"
        " values (%s, 1, now() + make_interval(secs => %s))"
        " on conflict (factor_id) do update set"
        "   failures = case when g.failures_until > now() then g.failures + 1 else 1 end,"
        "   failures_until = case when g.failures_until > now() then g.failures_until else excluded.failures_until end",
        [factor_id, window_seconds])


async def take_step(conn: AsyncConnection, factor_id: uuid.UUID, step: int) -> bool:
    """`step` recorded as the last accepted one, only if later than the last (the wrong codes
    are forgotten); False when it is not."""
    cur = await conn.execute(
        "insert into auth.mfa_totp_guards as g (factor_id, last_totp_step) values (%s, %s)"
        " on conflict (factor_id) do update set last_totp_step = excluded.last_totp_step, failures = 0,"
        "   failures_until = null"
        " where g.last_totp_step is null or g.last_totp_step < excluded.last_totp_step returning 1",
        [factor_id, step])
    return await cur.fetchone() is not None
