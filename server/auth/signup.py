"""POST /signup: email + password sign-up, or an anonymous sign-in when neither email nor phone."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import email_confirmation, gates, mail, metadata, passwords, pkce
from server.auth import error_codes as codes
from server.auth import phone as phone_auth
from server.auth.db import in_transaction
from server.auth.errors import bad_request, unprocessable
from server.auth.http import json_response, read_body
from server.auth.models.users import (
    confirm_email,
    create_user,
    sanitized_user,
    user_by_email,
    user_json,
    written_user,
)
from server.auth.service import AuthService, validate_email
from server.auth.session_tokens import issue_session

ALREADY_REGISTERED = "User already registered"


async def signup(svc: AuthService, request: Request) -> Response:
    settings = svc.ctx.settings
    body = await read_body(request)
    email, phone = body.text("email"), body.text("phone")
    password = body.text("password")
    data = body.obj("data") or {}
    metadata.check("user_metadata", data)
    if not email and not phone:  # GoTrue's /signup route: its own switch and rate limit
        gates.require_anonymous(settings)
        await svc.limiter.check("anonymous_users", request)
        gates.require_signup(settings)
        return await _anonymous(svc, request, data)
    await svc.limiter.check("signup", request)
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
            raise unprocessable(codes.USER_ALREADY_EXISTS, ALREADY_REGISTERED)
        return json_response(request, sanitized_user(existing, data, "email"))
    if existing is not None and autoconfirm:
        await passwords.require_own_password(svc.limiter, request, email, existing["encrypted_password"], password)
    password_hash = None if existing else await passwords.hash_password(password)
    if not autoconfirm:
        await svc.limiter.check_email()

    async def work(conn: AsyncConnection) -> Any:
        if existing is None:
            user_id = await create_user(conn, email=email, password_hash=password_hash, user_meta=data,
                                        app_meta={"provider": "email", "providers": ["email"]})
        else:  # the row read above, unless it changed meanwhile (confirmed, or its password)
            current = await user_by_email(conn, email, lock=True)
            if current is None or current["id"] != existing["id"] or current["email_confirmed_at"] is not None or (
                    current["encrypted_password"] != existing["encrypted_password"]):
                raise unprocessable(codes.USER_ALREADY_EXISTS, ALREADY_REGISTERED)
            user_id = existing["id"]
        if autoconfirm:
            await confirm_email(conn, user_id)
            return await issue_session(ctx, conn, request, await written_user(conn, user_id), "password")
        prefix = await pkce.start(conn, settings.flow_state_expiry, challenge, user_id=user_id,
                                  auth_method="email/signup", provider_type="email")
        await email_confirmation.send(svc, conn, user_id, email, redirect_to, prefix=prefix)
        user = await written_user(conn, user_id)
        if existing is None:
            return user_json(user)
        # GoTrue answers the existing user, metadata and all, to whoever signed up over it: its
        # owner is mailed, and the caller learns nothing of the account (not even an invite).
        return sanitized_user({**user, "invited_at": None}, data, "email")

    return json_response(request, await in_transaction(ctx, work, "Database error updating user"))


async def _anonymous(svc: AuthService, request: Request, data: dict[str, Any]) -> Response:
    ctx = svc.ctx

    async def work(conn: AsyncConnection) -> Any:
        user_id = await create_user(conn, email=None, password_hash=None, user_meta=data, app_meta={},
                                    is_anonymous=True)
        return await issue_session(ctx, conn, request, await written_user(conn, user_id), "anonymous")

    return json_response(request, await in_transaction(ctx, work, "Database error creating anonymous user"))
