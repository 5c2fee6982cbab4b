"""POST /invite: an admin invites a user by mail (GoTrue's invite.go and sendInvite).

A new address gets a user with `invited_at`, the metadata as sent (`data`) and an email
identity holding only its claims; an invited user who has not accepted yet is invited again
(a new code and link, `invited_at` renewed, the metadata left as it was); a confirmed address
is 422 `email_exists`. The mail's link opens GET /verify?type=invite, and its code works with
verifyOtp({type: 'invite'}): both confirm the address and sign the user in, who then sets a
password (GoTrue gives an invited user without one a random password on acceptance).
"""

from __future__ import annotations

import secrets
from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import mail, metadata, passwords
from server.auth.db import in_transaction
from server.auth.errors import unprocessable
from server.auth.http import json_response, read_body
from server.auth.models import one_time_tokens, users
from server.auth.models.users import DUPLICATE_EMAIL, UserRow, create_user, user_by_email, user_json, written_user
from server.auth.service import AuthService, validate_email


async def send_invite(svc: AuthService, conn: AsyncConnection, user_id: Any, email: str, redirect_to: str) -> None:
    """A new invite code and link, mailed (GoTrue's sendInvite: no per-user frequency check)."""
    await svc.limiter.check_email()
    otp = mail.new_otp()
    hashed = mail.token_hash(email, otp)
    await users.set_code(conn, user_id, "confirmation_token", "confirmation_sent_at", hashed)
    await users.mark_invited(conn, user_id)
    await one_time_tokens.save(conn, user_id, "confirmation_token", hashed, email)
    await mail.send(svc.ctx, conn, to=email, kind="invite", otp=otp,
                    link=mail.verify_link(svc.ctx, hashed, "invite", redirect_to), user_id=user_id)


async def invite(svc: AuthService, request: Request) -> Response:
    ctx = svc.ctx
    body = await read_body(request)
    data = body.obj("data") or {}
    email = validate_email(body.text("email"))
    metadata.check("user_metadata", data)
    mail.require_delivery(ctx, email)
    redirect_to = mail.redirect_target(ctx, request.query_params.get("redirect_to"))

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        user = await user_by_email(conn, email, lock=True)
        if user is not None and user["email_confirmed_at"] is not None:
            raise unprocessable(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
        if user is None:
            user_id = await create_user(conn, email=email, password_hash=None, user_meta=data,
                                        app_meta={"provider": "email", "providers": ["email"]},
                                        invited=True, exact_metadata=True)
        else:
            user_id = user["id"]
        await send_invite(svc, conn, user_id, email, redirect_to)
        return user_json(await written_user(conn, user_id))

    return json_response(request, await in_transaction(ctx, work, "Error inviting user"))


async def accept(conn: AsyncConnection, user: UserRow) -> None:
    """On verifying an invite (or a sign-up link) of an invited user without a password: a
    random one, as GoTrue's signupVerify sets, for the application to have the user replace."""
    if user["invited_at"] is None or user["encrypted_password"]:
        return
    password_hash = await passwords.hash_password(secrets.token_urlsafe(48))
    await users.set_password(conn, user["id"], password_hash)
