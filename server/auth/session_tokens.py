"""Sessions, refresh tokens and access tokens (GoTrue's internal/tokens/service.go).

A session is a row of auth.sessions; its refresh tokens form a chain (each token's `parent` is
the one it replaced). Deleting the session row ends it: its refresh tokens cascade away.
"""

from __future__ import annotations

import secrets
import string
import time
import uuid
from datetime import timedelta
from typing import Any

from psycopg import AsyncConnection, sql
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth import sessions
from server.auth.errors import AuthError, bad_request, forbidden
from server.auth.http import client_inet
from server.auth.models import mfa_amr_claims, refresh_tokens, users
from server.auth.models import sessions as session_rows
from server.auth.models.users import UserRow, user_by_id, user_json
from server.core.context import AppContext

REUSE_INTERVAL = timedelta(seconds=10)
_ALPHABET = string.ascii_lowercase + string.digits


def new_refresh_token() -> str:
    return "".join(secrets.choice(_ALPHABET) for _ in range(12))


def issuer(ctx: AppContext) -> str:
    return f"{ctx.settings.api_url}/auth/v1"


def access_token(ctx: AppContext, user: UserRow, session_id: uuid.UUID, amr: list[dict[str, Any]],
                 aal: str = "aal1") -> tuple[str, int]:
    """The signed access token and its expiry (unix time), with GoTrue's claims."""
    now = int(time.time())
    expires_at = now + ctx.settings.jwt_expiry
    claims = {
        "aud": user["aud"], "exp": expires_at, "iat": now, "iss": issuer(ctx), "sub": str(user["id"]),
        "email": user["email"] or "", "phone": user["phone"] or "",
        "app_metadata": user["raw_app_meta_data"] or {}, "user_metadata": user["raw_user_meta_data"] or {},
        "role": user["role"], "aal": aal, "amr": amr, "session_id": str(session_id),
        "is_anonymous": bool(user["is_anonymous"]),
    }
    return ctx.keys.sign(claims), expires_at


def token_response(ctx: AppContext, user: UserRow, session_id: uuid.UUID, refresh_token: str,
                   amr: list[dict[str, Any]], aal: str = "aal1") -> dict[str, Any]:
    token, expires_at = access_token(ctx, user, session_id, amr, aal)
    return {"access_token": token, "token_type": "bearer", "expires_in": ctx.settings.jwt_expiry,
            "expires_at": expires_at, "refresh_token": refresh_token, "user": user_json(user)}


def session_limit_error(limit: int) -> AuthError:
    return forbidden(codes.SESSION_LIMIT_REACHED,
                     f"You have reached the maximum number of sessions ({limit}) for this account. "
                     "Sign out from another device to continue.")


async def check_session_limit(ctx: AppContext, conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """Refuse a new session when the user already holds `max_sessions_per_user` live ones.

    Ended sessions (past their end under the current settings) do not count; a few long
    ended ones are swept on the way. The user row is locked first so two concurrent
    sign-ins cannot both pass the count.
    """
    await sessions.sweep(ctx, conn)
    limit = ctx.settings.max_sessions_per_user
    if limit <= 0:
        return
    await users.lock(conn, user_id)  # one session start of the user at a time: concurrent ones count each other
    await sessions.refresh_user_expiry(ctx, conn, user_id)
    if await session_rows.live_count(conn, user_id) >= limit:
        raise session_limit_error(limit)


async def issue_session(ctx: AppContext, conn: AsyncConnection, request: Request, user: UserRow,
                        method: str) -> dict[str, Any]:
    """Start a session for `user` (inside the caller's transaction) and answer its tokens."""
    await check_session_limit(ctx, conn, user["id"])
    session_id = uuid.uuid4()
    refresh = new_refresh_token()
    signed_in_at, updated_at, now = await session_rows.start(
        conn, session_id, user["id"], user_agent=request.headers.get("user-agent"), ip=client_inet(request),
        method=method, refresh_token=refresh, lifetime=sessions.lifetime_params(ctx.settings))
    user = {**user, "last_sign_in_at": signed_in_at, "updated_at": updated_at}
    return token_response(ctx, user, session_id, refresh, [{"method": method, "timestamp": now}])


async def refresh_grant(ctx: AppContext, conn: AsyncConnection, request: Request, token: str) -> dict[str, Any]:
    """Rotate `token` (inside the caller's transaction); GoTrue's RefreshTokenGrant.

    A session past its time box, idle beyond the inactivity timeout or past `not_after`
    answers `session_expired` (CheckValidity, in GoTrue's order of messages). A revoked token
    is still honoured when it is the parent of the session's current token (the client lost
    the answer of its last refresh: the current token is returned) or when it was revoked less
    than 10 s ago; otherwise it is reuse: the session is revoked (deleted, with all its
    tokens) and the answer is `refresh_token_already_used`.
    """
    found = await refresh_tokens.for_refresh(conn, token, REUSE_INTERVAL, sessions.lifetime_params(ctx.settings))
    if found is None:
        raise bad_request(codes.REFRESH_TOKEN_NOT_FOUND, "Invalid Refresh Token: Refresh Token Not Found")
    user = await user_by_id(conn, found["user_id"])
    if user is None:
        raise bad_request(codes.REFRESH_TOKEN_NOT_FOUND, "Invalid Refresh Token: Refresh Token Not Found")
    if user["is_banned"]:
        raise bad_request(codes.USER_BANNED, "Invalid Refresh Token: User Banned")
    if found["timed_out"] and not found["past_timebox"]:
        raise bad_request(codes.SESSION_EXPIRED, "Invalid Refresh Token: Session Expired (Inactivity)")
    if found["past_timebox"] or found["timed_out"] or found["past_not_after"]:
        raise bad_request(codes.SESSION_EXPIRED, "Invalid Refresh Token: Session Expired")
    session_id = found["session_id"]
    issued: str | None = None
    if found["revoked"]:
        active = await refresh_tokens.latest_active(conn, session_id)
        if active is not None and active[1] == token:
            issued = active[0]
        elif not found["in_reuse_window"]:
            # Reuse: the token family may be stolen, so the whole session ends (its tokens cascade).
            await session_rows.delete(conn, session_id)
            raise CommitThen(bad_request(codes.REFRESH_TOKEN_ALREADY_USED, "Invalid Refresh Token: Already Used"))
    if issued is None:
        issued = new_refresh_token()
        await refresh_tokens.rotate(conn, found["id"], token, issued, found["user_id"], session_id)
    # The refresh is the session's activity: its end moves with it.
    not_after = sessions.not_after_sql(sql.SQL("now()")) if sessions.limited(ctx.settings) else sql.SQL("s.not_after")
    await session_rows.refreshed(conn, session_id, user_agent=request.headers.get("user-agent"), ip=client_inet(request),
                                 not_after=not_after, lifetime=sessions.lifetime_params(ctx.settings))
    return token_response(ctx, user, session_id, issued, await mfa_amr_claims.of_session(conn, session_id),
                          await session_rows.aal(conn, session_id))


async def swap_refresh_token(conn: AsyncConnection, session_id: uuid.UUID, user_id: uuid.UUID) -> str:
    """GoTrue's GrantRefreshTokenSwap: the session's current token is revoked and replaced."""
    token = new_refresh_token()
    await refresh_tokens.swap(conn, session_id, user_id, token)
    return token


class CommitThen(Exception):
    """Commit the transaction's writes, then answer `error` (GoTrue's NewCommitWithError)."""

    def __init__(self, error: AuthError) -> None:
        super().__init__(error.message)
        self.error = error
