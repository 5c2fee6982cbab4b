"""POST /signup: email + password sign-up, or an anonymous sign-in when neither email nor phone."""

from __future__ import annotations

from datetime import UTC
from typing import Any

import psycopg
from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import gates, mail, metadata, passwords, pkce
from server.auth import phone as phone_auth
from server.auth.db import in_transaction
from server.auth.errors import bad_request, internal, unprocessable
from server.auth.http import json_response, read_body
from server.auth.service import AuthService, validate_email
from server.auth.session_tokens import issue_session
from server.auth.user_store import UserRow, confirm_email, insert_user, user_by_email, user_json, written_user

SAVE_ERROR = "Database error saving new user"


async def create_user(conn: AsyncConnection, **fields: Any) -> Any:
    """Insert a user; a failing app trigger becomes GoTrue's 500 and leaves no row."""
    try:
        async with conn.transaction():  # savepoint: the error is reported, not half-applied
            return await insert_user(conn, **fields)
    except psycopg.Error as exc:
        raise internal(SAVE_ERROR) from exc


async def signup(svc: AuthService, request: Request) -> Response:
    settings = svc.ctx.settings
    body = await read_body(request)
    email, phone = body.text("email"), body.text("phone")
    password = body.text("password")
    data = body.obj("data") or {}
    metadata.check("user_metadata", data)
    if not email and not phone:  # GoTrue's /signup route: its own switch and rate limit
        gates.require_anonymous(settings)
        svc.limiter.check("anonymous_users", request)
        gates.require_signup(settings)
        return await _anonymous(svc, request, data)
    svc.limiter.check("signup", request)
    gates.require_signup(settings)
    if not password:
        raise bad_request(codes.VALIDATION_FAILED, "Signup requires a valid password")
    passwords.check_strength(settings, password)
    if email and phone:
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided on signup.")
    if phone:
        return await phone_auth.signup(svc, request, body, phone, password, data)
    gates.require_email_signup(settings)
    email = validate_email(email)
    challenge = pkce.challenge_from_body(body)  # PKCE: the confirmation link redirects with ?code=
    ctx = svc.ctx
    autoconfirm = ctx.settings.mailer_autoconfirm
    if not autoconfirm:
        mail.require_delivery(ctx, email)
    redirect_to = mail.redirect_target(ctx, request.query_params.get("redirect_to"))
    existing = await in_transaction(ctx, lambda conn: user_by_email(conn, email))
    if existing is not None and existing["email_confirmed_at"] is not None:
        if autoconfirm:
            raise unprocessable(codes.USER_ALREADY_EXISTS, "User already registered")
        return json_response(request, _obfuscated(existing, data))
    password_hash = None if existing else await passwords.hash_password(password)
    if not autoconfirm:
        svc.limiter.check_email()

    async def work(conn: AsyncConnection) -> Any:
        user_id = existing["id"] if existing else await create_user(
            conn, email=email, password_hash=password_hash, user_meta=data,
            app_meta={"provider": "email", "providers": ["email"]})
        if autoconfirm:
            await confirm_email(conn, user_id)
            return await issue_session(ctx, conn, request, await written_user(conn, user_id), "password")
        prefix = await pkce.start(conn, settings.flow_state_expiry, challenge, user_id=user_id,
                                  auth_method="email/signup", provider_type="email")
        await send_confirmation(svc, conn, user_id, email, redirect_to, prefix=prefix)
        return user_json(await written_user(conn, user_id))

    return json_response(request, await in_transaction(ctx, work, "Database error updating user"))


async def send_confirmation(svc: AuthService, conn: AsyncConnection, user_id: Any, email: str, redirect_to: str,
                            *, prefix: str = "") -> None:
    """The confirmation mail; `prefix` is pkce.TOKEN_PREFIX for a PKCE flow's link."""
    otp = mail.new_otp()
    hashed = prefix + mail.token_hash(email, otp)
    await conn.execute("update auth.users set confirmation_token = %s, confirmation_sent_at = now() where id = %s",
                       [hashed, user_id])
    await save_one_time_token(conn, user_id, "confirmation_token", hashed, email)
    await mail.send(svc.ctx, conn, to=email, kind="signup", otp=otp,
                    link=mail.verify_link(svc.ctx, hashed, "signup", redirect_to))


async def save_one_time_token(conn: AsyncConnection, user_id: Any, token_type: str, hashed: str, relates_to: str) -> None:
    await conn.execute(
        "insert into auth.one_time_tokens (id, user_id, token_type, token_hash, relates_to)"
        " values (gen_random_uuid(), %s, %s, %s, %s) on conflict (user_id, token_type)"
        " do update set token_hash = excluded.token_hash, relates_to = excluded.relates_to, updated_at = now()",
        [user_id, token_type, hashed, relates_to])


def _obfuscated(existing: UserRow, data: dict[str, Any]) -> dict[str, Any]:
    """GoTrue's sanitizeUser: a repeated sign-up must not reveal that the email is taken."""
    import uuid
    from datetime import datetime

    now = datetime.now(UTC)
    fake: UserRow = {
        **existing, "id": uuid.uuid4(), "role": "", "email_change": "", "created_at": now, "updated_at": now,
        "confirmation_sent_at": now, "last_sign_in_at": None, "confirmed_at": None, "email_change_sent_at": None,
        "email_confirmed_at": None, "phone_confirmed_at": None, "identities": [], "raw_user_meta_data": data,
        "raw_app_meta_data": {"provider": "email", "providers": ["email"]}, "phone": "", "recovery_sent_at": None,
        "banned_until": None,
    }
    return user_json(fake)


async def _anonymous(svc: AuthService, request: Request, data: dict[str, Any]) -> Response:
    ctx = svc.ctx

    async def work(conn: AsyncConnection) -> Any:
        user_id = await create_user(conn, email=None, password_hash=None, user_meta=data, app_meta={},
                                    is_anonymous=True)
        return await issue_session(ctx, conn, request, await written_user(conn, user_id), "anonymous")

    return json_response(request, await in_transaction(ctx, work, "Database error creating anonymous user"))
