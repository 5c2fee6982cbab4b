"""The auth.mfa_challenges table (and its wrong-answer counts): the challenges MFA factors answer."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, TypedDict, cast

from psycopg import AsyncConnection
from psycopg.rows import dict_row
from psycopg.types.json import Jsonb


class ChallengeRow(TypedDict):
    id: uuid.UUID
    factor_id: uuid.UUID
    created_at: datetime
    verified_at: datetime | None
    ip_address: str
    otp_code: str | None
    web_authn_session_data: Any
    expired: bool


async def insert(conn: AsyncConnection, challenge_id: uuid.UUID, factor_id: uuid.UUID, ip_address: str,
                 otp_code: str | None, web_authn_session_data: Any, expiry_seconds: float) -> int:
    """A new challenge; the factor's last_challenged_at moves. Its expiry, in unix seconds."""
    cur = await conn.execute(
        "with c as (insert into auth.mfa_challenges (id, factor_id, created_at, ip_address, otp_code,"
        "   web_authn_session_data) values (%s, %s, now(), %s::inet, %s, %s) returning created_at)"
        " update auth.mfa_factors set last_challenged_at = (select created_at from c) where id = %s"
        " returning extract(epoch from (select created_at from c) + make_interval(secs => %s))::bigint",
        [challenge_id, factor_id, ip_address, otp_code,
         None if web_authn_session_data is None else Jsonb(web_authn_session_data), factor_id, expiry_seconds])
    row = await cur.fetchone()
    assert row is not None
    return int(row[0])


async def of_factor(conn: AsyncConnection, challenge_id: uuid.UUID, factor_id: uuid.UUID,
                    expiry_seconds: float) -> ChallengeRow | None:
    """The factor's challenge, locked for update, with `expired`."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "select id, factor_id, created_at, verified_at, host(ip_address) as ip_address, otp_code,"
            " web_authn_session_data, created_at + make_interval(secs => %s) < now() as expired"
            " from auth.mfa_challenges where id = %s and factor_id = %s for update",
            [expiry_seconds, challenge_id, factor_id])
        return cast("ChallengeRow | None", await cur.fetchone())


async def verified(conn: AsyncConnection, challenge_id: uuid.UUID) -> None:
    await conn.execute("update auth.mfa_challenges set verified_at = now() where id = %s", [challenge_id])


async def delete(conn: AsyncConnection, challenge_id: uuid.UUID) -> None:
    await conn.execute("delete from auth.mfa_challenges where id = %s", [challenge_id])


async def count_failure(conn: AsyncConnection, challenge_id: uuid.UUID) -> int:
    """One more wrong answer to the challenge; how many it has had."""
    cur = await conn.execute(
        "insert into auth.mfa_challenge_failures as f (challenge_id, failures) values (%s, 1)"
        " on conflict (challenge_id) do update set failures = f.failures + 1 returning failures", [challenge_id])
    row = await cur.fetchone()
    return int(row[0]) if row is not None else 0
