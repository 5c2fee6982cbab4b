"""GET /reauthenticate: a nonce by mail (or SMS) that a password change must present when
GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION is on (supabase-js
`auth.reauthenticate()` then `updateUser({password, nonce})`).

As GoTrue: the nonce goes to the user's e-mail, or to the phone of a user without one; it is
stored as GoTrue stores it (reauthentication_token = sha224 of address + code, and a
one_time_tokens row), expires with the mailed codes (or the SMS ones), and is spent by the
password change it allows. A session signed in within the last 24 hours needs no nonce.
"""

from __future__ import annotations

import hmac
from datetime import timedelta

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import mail, phone_codes, wrong_codes
from server.auth.authn import SignedIn, signed_in
from server.auth.db import in_transaction
from server.auth.errors import bad_request, unprocessable
from server.auth.http import json_response
from server.auth.models import one_time_tokens, users
from server.auth.models import sessions as session_rows
from server.auth.models.users import UserRow
from server.auth.service import AuthService
from server.auth.session_tokens import CommitThen
from server.core.caller import Caller

INVALID_NONCE = "Nonce has expired or is invalid"
RECENT_SIGN_IN = timedelta(hours=24)  # GoTrue: a session younger than this is proof enough
TOKEN_TYPE = "reauthentication_token"


async def reauthenticate(svc: AuthService, request: Request, caller: Caller) -> Response:
    ctx = svc.ctx

    async def work(conn: AsyncConnection) -> dict[str, str]:
        user = (await signed_in(conn, caller, lock=True)).user
        email, phone = user["email"] or "", user["phone"] or ""
        if not email and not phone:
            raise bad_request(codes.VALIDATION_FAILED,
                              "Reauthentication requires the user to have an email or a phone number")
        if email and user["email_confirmed_at"] is None:
            raise unprocessable(codes.EMAIL_NOT_CONFIRMED, "Please verify your email first.")
        if not email and user["phone_confirmed_at"] is None:
            raise unprocessable(codes.PHONE_NOT_CONFIRMED, "Please verify your phone first.")
        if not email:  # GoTrue's sendPhoneConfirmation with phoneReauthenticationOtp, and its message id
            message_id = await phone_codes.send_code(svc, conn, request, user, phone, "reauthentication")
            return {"message_id": message_id} if message_id else {}
        mail.require_delivery(ctx, email)
        await svc.limiter.check_mail_frequency(conn, user["id"], "reauthentication_sent_at")
        code = mail.new_otp()
        hashed = mail.token_hash(email, code)
        await users.set_code(conn, user["id"], "reauthentication_token", "reauthentication_sent_at", hashed)
        await one_time_tokens.save(conn, user["id"], TOKEN_TYPE, hashed, email)
        await mail.send(ctx, conn, to=email, kind="reauthentication", otp=code, link="", user_id=user["id"])
        return {}

    return json_response(request, await in_transaction(ctx, work, "Error sending reauthentication code"))


async def check_password_change(svc: AuthService, conn: AsyncConnection, signed: SignedIn, nonce: str) -> None:
    """PUT /user with a password, when GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION
    is on: a session signed in within 24 hours passes; otherwise the nonce must be the last one
    sent, unexpired, and is spent (GoTrue's verifyReauthentication, before the password checks)."""
    if not svc.ctx.settings.secure_password_change:
        return
    if signed.session_id is not None and await session_rows.created_within(conn, signed.session_id, RECENT_SIGN_IN):
        return
    if not nonce:
        raise bad_request(codes.REAUTHENTICATION_NEEDED, "Password update requires reauthentication")
    await _spend_nonce(svc, conn, signed.user, nonce)


async def _spend_nonce(svc: AuthService, conn: AsyncConnection, user: UserRow, nonce: str) -> None:
    """The nonce was sent to the e-mail, or to the phone of a user without one, and lasts as
    the codes sent there do."""
    address = user["email"] or user["phone"]
    expiry = mail.OTP_EXPIRY_SECONDS if user["email"] else svc.ctx.settings.sms_otp_exp
    await users.lock_for_update(conn, user["id"])
    # Counted before the comparison, and kept (CommitThen): the nonce dies at its
    # MAX_WRONG_CODES-th wrong try (server.auth.wrong_codes).
    comparable = await wrong_codes.take_try(conn, user["id"], TOKEN_TYPE)
    stored, live = await users.reauthentication_nonce(conn, user["id"], expiry)
    if not stored or live is None:
        raise CommitThen(unprocessable(codes.REAUTHENTICATION_NOT_VALID, INVALID_NONCE))
    if not address:
        raise unprocessable(codes.REAUTHENTICATION_NOT_VALID, "Reauthentication requires an email or a phone number")
    if not (comparable and hmac.compare_digest(mail.token_hash(address, nonce), stored) and live):
        await wrong_codes.wrong_try(conn, user["id"], TOKEN_TYPE)
        raise CommitThen(unprocessable(codes.REAUTHENTICATION_NOT_VALID, INVALID_NONCE))
    await wrong_codes.right_try(conn, user["id"], (TOKEN_TYPE,))
    await users.clear_reauthentication_nonce(conn, user["id"])
    await one_time_tokens.delete_kind(conn, user["id"], TOKEN_TYPE)
