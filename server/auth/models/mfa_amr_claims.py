"""The auth.mfa_amr_claims table: the ways each session was authenticated (its `amr` claim)."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection


async def add(conn: AsyncConnection, session_id: uuid.UUID, method: str) -> None:
    """The session authenticated by `method` (again: its time moves)."""
    await conn.execute(
        "insert into auth.mfa_amr_claims (session_id, created_at, updated_at, authentication_method, id)"
        " values (%s, now(), now(), %s, gen_random_uuid())"
        " on conflict (session_id, authentication_method) do update set updated_at = now()",
        [session_id, method])


async def of_session(conn: AsyncConnection, session_id: uuid.UUID) -> list[dict[str, Any]]:
    """The session's amr entries, latest first: {method, timestamp}."""
    cur = await conn.execute(
        "select authentication_method, extract(epoch from updated_at)::bigint from auth.mfa_amr_claims"
        " where session_id = %s order by updated_at desc", [session_id])
    return [{"method": m, "timestamp": ts} for m, ts in await cur.fetchall()]


async def delete_for_factor(conn: AsyncConnection, method: str, factor_id: uuid.UUID) -> None:
    """`method` leaves the amr of the sessions `factor_id` raised."""
    await conn.execute(
        "delete from auth.mfa_amr_claims where authentication_method = %s"
        " and session_id in (select id from auth.sessions where factor_id = %s)", [method, factor_id])
