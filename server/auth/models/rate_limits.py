"""The auth.rate_limits table: the limiters' buckets, one row per bucket and key, shared by every process."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

# The time of a check, in seconds: the database's clock (the same for every replica), or a
# test's clock.
_NOW = "coalesce(%(now)s::float8, extract(epoch from now()))"

# A token bucket (x/time/rate, as tollbooth uses it): `tokens` left at `at`, refilled at `rate`
# a second up to `capacity`. A new key starts full and takes one; a known one is refilled for
# the time elapsed, then takes one if it has one. The row dies when the bucket would be full
# again (it is then the same as no row).
_REFILLED = "least(%(capacity)s, r.tokens + greatest(0, excluded.at - r.at) * %(rate)s)"
_LEFT = f"({_REFILLED} - case when {_REFILLED} >= 1 then 1 else 0 end)"
_TAKE_TOKEN = f"""
insert into auth.rate_limits as r (bucket, key, tokens, at, expires_at, allowed)
select %(bucket)s, %(key)s, %(capacity)s - 1, t.now, t.now + 1 / %(rate)s, true from (select {_NOW} as now) t
on conflict (bucket, key) do update set
  allowed = {_REFILLED} >= 1,
  tokens = {_LEFT},
  expires_at = excluded.at + (%(capacity)s - {_LEFT}) / %(rate)s,
  at = excluded.at
returning allowed"""

# A fixed window: `tokens` requests counted in the window ending at `expires_at`. An ended
# window starts afresh with this request; a full one refuses without counting.
_COUNT_IN_WINDOW = f"""
insert into auth.rate_limits as r (bucket, key, tokens, at, expires_at, allowed)
select %(bucket)s, %(key)s, 1, t.now, t.now + %(per_seconds)s, true from (select {_NOW} as now) t
on conflict (bucket, key) do update set
  allowed = r.expires_at <= excluded.at or r.tokens < %(count)s,
  tokens = case when r.expires_at <= excluded.at then 1
                when r.tokens < %(count)s then r.tokens + 1 else r.tokens end,
  at = case when r.expires_at <= excluded.at then excluded.at else r.at end,
  expires_at = case when r.expires_at <= excluded.at then excluded.expires_at else r.expires_at end
returning allowed"""

_FORGET = "delete from auth.rate_limits where bucket = %(bucket)s and key = %(key)s"

# Rows no longer counting, a batch at a time; rows another process is updating are left to
# the next sweep (no waiting, no deadlock between processes sweeping at once).
_SWEEP = f"""
delete from auth.rate_limits where (bucket, key) in (
  select bucket, key from auth.rate_limits where expires_at <= {_NOW}
  limit 10000 for update skip locked)"""


async def take_token(conn: AsyncConnection[Any], bucket: str, key: str, now: float | None, *, capacity: float,
                     rate: float) -> bool:
    """One token taken from the key's bucket (`now`: a test's clock, else the database's); False when empty."""
    cur = await conn.execute(_TAKE_TOKEN, {"bucket": bucket, "key": key, "now": now, "capacity": capacity, "rate": rate})
    row = await cur.fetchone()
    return bool(row and row[0])


async def count_in_window(conn: AsyncConnection[Any], bucket: str, key: str, now: float | None, *, count: int,
                          per_seconds: float) -> bool:
    """One request counted in the key's window; False when the window is full."""
    cur = await conn.execute(_COUNT_IN_WINDOW, {"bucket": bucket, "key": key, "now": now, "count": count,
                                                "per_seconds": per_seconds})
    row = await cur.fetchone()
    return bool(row and row[0])


async def forget(conn: AsyncConnection[Any], bucket: str, key: str) -> None:
    await conn.execute(_FORGET, {"bucket": bucket, "key": key})


async def sweep(conn: AsyncConnection[Any], now: float | None) -> None:
    await conn.execute(_SWEEP, {"now": now})
