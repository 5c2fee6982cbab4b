"""Who calls: GoTrue's requireAuthentication / requireAdmin for /auth/v1 endpoints."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, forbidden
from server.auth.user_store import UserRow, user_by_id
from server.core.caller import MissingToken, verified_caller
from server.core.context import AppContext
from server.core.jwt import JwtError

ADMIN_ROLES = ("service_role", "supabase_admin")


@dataclass
class Caller:
    claims: Mapping[str, Any]
    user: UserRow
    session_id: uuid.UUID | None


def bearer_claims(ctx: AppContext, request: Request) -> Mapping[str, Any]:
    """The verified claims of the request's Bearer token (GoTrue reads no apikey header)."""
    try:
        return verified_caller(ctx.keys, request.headers, apikey=False, required=True).claims
    except MissingToken:
        raise AuthError(401, codes.NO_AUTHORIZATION, "This endpoint requires a valid Bearer token") from None
    except JwtError as exc:
        detail = str(exc).removeprefix("invalid JWT: ")
        raise forbidden(codes.BAD_JWT, f"invalid JWT: unable to parse or verify signature, {detail}") from None


async def load_caller(ctx: AppContext, conn: AsyncConnection, claims: Mapping[str, Any], *, lock: bool = False) -> Caller:
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise forbidden(codes.BAD_JWT, "invalid claim: missing sub claim")
    try:
        user_id = uuid.UUID(sub)
    except ValueError:
        raise forbidden(codes.BAD_JWT, "invalid claim: sub claim must be a UUID") from None
    user = await user_by_id(conn, user_id, lock=lock)
    if user is None:
        raise forbidden(codes.USER_NOT_FOUND, "User from sub claim in JWT does not exist")
    session_id = None
    raw_sid = claims.get("session_id")
    if raw_sid:
        try:
            session_id = uuid.UUID(str(raw_sid))
        except ValueError:
            raise forbidden(codes.BAD_JWT, "invalid claim: session_id claim must be a UUID") from None
        cur = await conn.execute("select 1 from auth.sessions where id = %s", [session_id])
        if await cur.fetchone() is None:
            raise forbidden(codes.SESSION_NOT_FOUND, "Session from session_id claim in JWT does not exist")
    return Caller(claims, user, session_id)


def require_admin(ctx: AppContext, request: Request) -> Mapping[str, Any]:
    claims = bearer_claims(ctx, request)
    if claims.get("role") not in ADMIN_ROLES:
        raise forbidden(codes.NOT_ADMIN, "User not allowed")
    return claims
