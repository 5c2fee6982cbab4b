"""The auth.flow_state table: OAuth and PKCE flows between their start and their code exchange."""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row

SWEEP_BATCH = 100


async def sweep(conn: AsyncConnection, expiry: float, link_expiry: float) -> None:
    """Flows nothing can use any more, a batch at a time, passing over rows another transaction
    holds (never waiting for them): an OAuth flow past `expiry`, a mailed link's flow once past
    `link_expiry` and its code (issued, or its creation) past `expiry`."""
    await conn.execute(
        "delete from auth.flow_state where ctid in (select ctid from auth.flow_state"
        " where created_at < now() - make_interval(secs => %s) and (authentication_method = 'oauth'"
        "   or (created_at < now() - make_interval(secs => %s)"
        "       and coalesce(auth_code_issued_at, created_at) < now() - make_interval(secs => %s)))"
        " limit %s for update skip locked)",
        [expiry, link_expiry, expiry, SWEEP_BATCH])


async def insert(conn: AsyncConnection, *, user_id: uuid.UUID | None, auth_code: str | None,
                 code_challenge_method: str | None, code_challenge: str | None, provider_type: str,
                 auth_method: str, referrer: str | None, linking_target_id: uuid.UUID | None,
                 invite_token: str | None) -> dict[str, Any]:
    """The new flow's row."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "insert into auth.flow_state (id, user_id, auth_code, code_challenge_method, code_challenge, provider_type,"
            " created_at, updated_at, authentication_method, referrer, linking_target_id, invite_token)"
            " values (%s, %s, %s, %s, %s, %s, now(), now(), %s, %s, %s, %s) returning *",
            [uuid.uuid4(), user_id, auth_code, code_challenge_method, code_challenge, provider_type, auth_method,
             referrer, linking_target_id, invite_token])
        row = await cur.fetchone()
    assert row is not None
    return row


async def issue_latest_code(conn: AsyncConnection, user_id: uuid.UUID, auth_method: str) -> str | None:
    """The auth code of the user's latest flow of this method, marked issued; None without one."""
    cur = await conn.execute(
        "update auth.flow_state set auth_code_issued_at = now(), updated_at = now() where id ="
        " (select id from auth.flow_state where user_id = %s and authentication_method = %s and auth_code is not null"
        "  order by created_at desc limit 1 for update) returning auth_code", [user_id, auth_method])
    row = await cur.fetchone()
    return None if row is None else str(row[0])


async def by_auth_code(conn: AsyncConnection, auth_code: str, expiry: float) -> dict[str, Any] | None:
    """The flow of an auth code, locked, with `expired`: a magic link's counts from its code's issue."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "select *, coalesce(case when authentication_method = 'magiclink' then auth_code_issued_at end,"
            " created_at) + make_interval(secs => %s) < now() as expired"
            " from auth.flow_state where auth_code = %s for update", [expiry, auth_code])
        return await cur.fetchone()


async def oauth_by_id(conn: AsyncConnection, flow_id: uuid.UUID, expiry: float) -> dict[str, Any] | None:
    """An OAuth flow (its id is the OAuth `state`), with `expired`."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "select *, created_at + make_interval(secs => %s) < now() as expired from auth.flow_state"
            " where id = %s and authentication_method = 'oauth'", [expiry, flow_id])
        return await cur.fetchone()


async def signed_in(conn: AsyncConnection, flow_id: uuid.UUID, user_id: uuid.UUID, access_token: str | None,
                    refresh_token: str | None) -> str | None:
    """A PKCE OAuth flow given its user and the provider's tokens, its code issued; None when
    another callback took it first."""
    cur = await conn.execute(
        "update auth.flow_state set user_id = %s, provider_access_token = %s, provider_refresh_token = %s,"
        " auth_code_issued_at = now(), updated_at = now() where id = %s and user_id is null returning auth_code",
        [user_id, access_token, refresh_token, flow_id])
    row = await cur.fetchone()
    return None if row is None else str(row[0])


async def delete(conn: AsyncConnection, flow_id: uuid.UUID) -> bool:
    """The flow deleted; False when it was gone."""
    cur = await conn.execute("delete from auth.flow_state where id = %s returning id", [flow_id])
    return await cur.fetchone() is not None
