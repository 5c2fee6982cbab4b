"""Who calls /auth/v1: GoTrue's requireAuthentication and requireAdminCredentials, and the user a token signs in."""

from __future__ import annotations

import enum
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, forbidden
from server.auth.models import sessions, users
from server.auth.models.users import UserRow
from server.core.caller import Caller, MissingToken, verified_caller
from server.core.context import AppContext
from server.core.jwt import JwtError

ADMIN_ROLES = ("service_role", "supabase_admin")


class Auth(enum.Enum):
    """What a route requires of its caller before its handler runs (GoTrue's route middleware)."""

    PUBLIC = "public"  # no token read
    USER = "user"  # requireAuthentication: a valid Bearer token naming a user; the handler gets its Caller
    ADMIN = "admin"  # requireAdminCredentials: a valid Bearer token whose role is an admin role


@dataclass
class SignedIn:
    """The user a verified token names, as the database holds it, with the token's session."""

    claims: Mapping[str, Any]
    user: UserRow
    session_id: uuid.UUID | None


def bearer_caller(ctx: AppContext, request: Request) -> Caller:
    """The verified caller of the request's Bearer token (GoTrue reads no apikey header)."""
    try:
        return verified_caller(ctx.keys, request.headers, apikey=False, required=True)
    except MissingToken:
        raise AuthError(401, codes.NO_AUTHORIZATION, "This endpoint requires a valid Bearer token") from None
    except JwtError as exc:
        detail = str(exc).removeprefix("invalid JWT: ")
        raise forbidden(codes.BAD_JWT, f"invalid JWT: unable to parse or verify signature, {detail}") from None


def user_caller(ctx: AppContext, request: Request) -> Caller:
    """The Bearer token's caller, refused 403 bad_jwt unless it names a user (a UUID `sub`), as
    GoTrue's requireAuthentication does before any handler; the user is loaded by signed_in."""
    caller = bearer_caller(ctx, request)
    _subject(caller.claims)
    return caller


def admin_caller(ctx: AppContext, request: Request) -> Caller:
    """The Bearer token's caller, refused 403 not_admin unless its role is an admin role."""
    caller = bearer_caller(ctx, request)
    if caller.claims.get("role") not in ADMIN_ROLES:
        raise forbidden(codes.NOT_ADMIN, "User not allowed")
    return caller


def _subject(claims: Mapping[str, Any]) -> uuid.UUID:
    """The user id a token's `sub` claim names."""
    sub = claims.get("sub")
    if not isinstance(sub, str) or not sub:
        raise forbidden(codes.BAD_JWT, "invalid claim: missing sub claim")
    try:
        return uuid.UUID(sub)
    except ValueError:
        raise forbidden(codes.BAD_JWT, "invalid claim: sub claim must be a UUID") from None


async def signed_in(conn: AsyncConnection, caller: Caller, *, lock: bool = False) -> SignedIn:
    """The user and session of a verified token (`lock`: the user's row locked for update)."""
    claims = caller.claims
    user = await users.user_by_id(conn, _subject(claims), lock=lock)
    if user is None:
        raise forbidden(codes.USER_NOT_FOUND, "User from sub claim in JWT does not exist")
    session_id = None
    raw_sid = claims.get("session_id")
    if raw_sid:
        try:
            session_id = uuid.UUID(str(raw_sid))
        except ValueError:
            raise forbidden(codes.BAD_JWT, "invalid claim: session_id claim must be a UUID") from None
        if not await sessions.exists(conn, session_id):
            raise forbidden(codes.SESSION_NOT_FOUND, "Session from session_id claim in JWT does not exist")
    return SignedIn(claims, user, session_id)
