"""The auth.webauthn_challenges table: a passkey ceremony's state, kept until its verify."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb


async def sweep(conn: AsyncConnection) -> None:
    """Challenges nobody answered, dropped once well past their expiry (a bounded sweep)."""
    await conn.execute(
        "delete from auth.webauthn_challenges where id in (select id from auth.webauthn_challenges"
        " where expires_at < now() - interval '1 hour' limit 100)")


async def expiry(conn: AsyncConnection, lifetime: timedelta) -> tuple[datetime, int]:
    """The database's now + `lifetime`, as a time and as unix seconds."""
    cur = await conn.execute("select now() + %s, extract(epoch from now() + %s)::bigint", [lifetime, lifetime])
    row = await cur.fetchone()
    assert row is not None
    return row[0], int(row[1])


async def insert(conn: AsyncConnection, challenge_id: uuid.UUID, user_id: uuid.UUID | None, kind: str,
                 session_data: dict[str, Any], expires_at: datetime) -> None:
    await conn.execute(
        "insert into auth.webauthn_challenges (id, user_id, challenge_type, session_data, created_at, expires_at)"
        " values (%s, %s, %s, %s, now(), %s)", [challenge_id, user_id, kind, Jsonb(session_data), expires_at])


async def consume(conn: AsyncConnection, challenge_id: uuid.UUID, kind: str,
                  user_id: uuid.UUID | None) -> tuple[Any, bool] | None:
    """The challenge deleted: (its session data, expired), or None when there is no such challenge."""
    cur = await conn.execute(
        "delete from auth.webauthn_challenges where id = %s and challenge_type = %s"
        " and user_id is not distinct from %s returning session_data, expires_at < now()",
        [challenge_id, kind, user_id])
    row = await cur.fetchone()
    return (row[0], bool(row[1])) if row is not None else None
