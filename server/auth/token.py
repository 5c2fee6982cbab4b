"""POST /token: grant_type=password and grant_type=refresh_token."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import external as external_grants
from server.auth import gates, passwords, phone_numbers
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, unprocessable
from server.auth.http import json_response, read_body
from server.auth.models.users import user_by_email, user_by_phone
from server.auth.service import AuthService, validate_email
from server.auth.session_tokens import issue_session, refresh_grant

INVALID_LOGIN = "Invalid login credentials"


async def token(svc: AuthService, request: Request) -> Response:
    grant_type = request.query_params.get("grant_type", "")
    if grant_type == "password":
        return await password_grant(svc, request)
    if grant_type == "refresh_token":
        return await refresh_token_grant(svc, request)
    if grant_type in external_grants.GRANTS:  # pkce, id_token, web3 (server/auth/external.py)
        return await external_grants.GRANTS[grant_type](svc, request)
    raise bad_request(codes.INVALID_CREDENTIALS, "unsupported_grant_type")


async def password_grant(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("token_refresh", request)  # GoTrue's Token limiter counts every grant
    body = await read_body(request)
    email, phone, password = body.text("email"), body.text("phone"), body.text("password")
    if email and phone:
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided on login.")
    ctx = svc.ctx
    if phone:
        if not ctx.settings.phone_enabled:
            raise unprocessable(codes.PHONE_PROVIDER_DISABLED, "Phone logins are disabled")
        login = phone_numbers.format_phone(phone)  # formatted, not validated, as GoTrue
    elif email:
        gates.require_email_login(ctx.settings)
        login = validate_email(email)
    else:
        raise bad_request(codes.VALIDATION_FAILED, "missing email or phone")
    # Counted per account and client too (server/auth/ratelimit.py), before the check so that
    # concurrent guesses count as well; a right password clears this client's count.
    client = svc.limiter.account_client(request)
    await svc.limiter.account_attempt(login, client)
    user = await in_transaction(ctx, lambda conn: user_by_phone(conn, login) if phone else user_by_email(conn, login))
    if user is None or not user["encrypted_password"]:
        raise bad_request(codes.INVALID_CREDENTIALS, INVALID_LOGIN)
    if user["is_banned"]:
        raise bad_request(codes.USER_BANNED, "User is banned")
    if not await passwords.verify_password(password, user["encrypted_password"]):
        raise bad_request(codes.INVALID_CREDENTIALS, INVALID_LOGIN)
    await svc.limiter.account_succeeded(login, client)
    if phone and user["phone_confirmed_at"] is None:
        raise bad_request(codes.PHONE_NOT_CONFIRMED, "Phone not confirmed")
    if email and user["email_confirmed_at"] is None:
        raise bad_request(codes.EMAIL_NOT_CONFIRMED, "Email not confirmed")

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        return await issue_session(ctx, conn, request, user, "password")

    session = await in_transaction(ctx, work, "Database error granting user")
    weak = passwords.strength_error(ctx.settings, password)
    if weak is not None and weak.code == codes.WEAK_PASSWORD:
        session["weak_password"] = {"message": weak.message, **weak.extra["weak_password"]}
    return json_response(request, session)


async def refresh_token_grant(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("token_refresh", request)
    body = await read_body(request)
    refresh = body.text("refresh_token")
    if not refresh:
        raise AuthError(400, codes.VALIDATION_FAILED, "refresh_token required", oauth="invalid_request")
    ctx = svc.ctx
    return json_response(request, await in_transaction(ctx, lambda conn: refresh_grant(ctx, conn, request, refresh)))
