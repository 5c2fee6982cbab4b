"""The phone provider's handlers, as GoTrue's: sign-up and sign-in with SMS codes, verifying and resending them, changing a number.

Entry points, called from the shared endpoint modules: signup (POST /signup {phone}), otp
(POST /otp {phone}), verify_post (POST /verify type sms | phone_change), resend (POST /resend
type sms | phone_change), check_new_phone / change_phone (PUT /user {phone}). A code dies at
its fifth wrong try (server.auth.wrong_codes; GoTrue bounds tries per client only), a test
number's fixed code too, until a new code is sent. Numbers are server.auth.phone_numbers',
codes server.auth.phone_codes'.
"""

from __future__ import annotations

import uuid
from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import gates, mail, metadata, passwords, phone_codes, sessions, wrong_codes
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, forbidden, unprocessable
from server.auth.http import Body, json_response
from server.auth.identities import claims_map
from server.auth.models import identities as identity_rows
from server.auth.models import users
from server.auth.models.users import (
    UserRow,
    create_user,
    sanitized_user,
    user_by_email,
    user_by_phone,
    user_by_phone_change,
    user_json,
    written_user,
)
from server.auth.phone_numbers import check_channel, validate_phone
from server.auth.service import AuthService, validate_email
from server.auth.session_tokens import CommitThen, issue_session

PROVIDER = phone_codes.PROVIDER
VERIFY_TYPES = ("sms", "phone_change")
EXPIRED = "Token has expired or is invalid"
DUPLICATE_PHONE = "A user with this phone number has already been registered"


def _provider_disabled(message: str) -> AuthError:
    return bad_request(codes.PHONE_PROVIDER_DISABLED, message)


def _message(message_id: str) -> dict[str, str]:
    return {"message_id": message_id} if message_id else {}


# Sign-up: POST /signup {phone, password}, and the new users of POST /otp {phone}.

class _Registered(Exception):
    """The number belongs to a confirmed user already (GoTrue's UserExistsError)."""

    def __init__(self, user: UserRow) -> None:
        super().__init__("user already exists")
        self.user = user


async def _create_user(conn: AsyncConnection, phone: str, password_hash: str | None, data: dict[str, Any]) -> uuid.UUID:
    """A phone user and its phone identity; the identity's claims are its user metadata too."""
    user_id = await create_user(conn, email=None, phone=phone, password_hash=password_hash, user_meta=data,
                                app_meta={"provider": PROVIDER, "providers": [PROVIDER]})
    identity = {**data, **claims_map({"sub": str(user_id)})}  # the claims win over the caller's data
    await identity_rows.create(conn, user_id, PROVIDER, identity)
    await users.set_user_metadata(conn, user_id, identity)
    return user_id


async def _register(svc: AuthService, conn: AsyncConnection, request: Request, phone: str,
                    password_hash: str | None, data: dict[str, Any]) -> UserRow:
    """GoTrue's Signup for the phone provider, in the caller's transaction: a new user (an
    unconfirmed one is reused, unchanged), then confirmed (GOTRUE_SMS_AUTOCONFIRM) or sent a code."""
    user = await user_by_phone(conn, phone, lock=True)
    if user is not None and user["phone_confirmed_at"] is not None:
        raise _Registered(user)
    user_id = user["id"] if user is not None else await _create_user(conn, phone, password_hash, data)
    if svc.ctx.settings.sms_autoconfirm:
        await phone_codes.confirm_phone(conn, user_id)
    else:
        await phone_codes.send_code(svc, conn, request, await written_user(conn, user_id), phone, "confirmation")
    return await written_user(conn, user_id)


async def signup(svc: AuthService, request: Request, body: Body, phone: str, password: str,
                 data: dict[str, Any]) -> Response:
    """POST /signup with a phone number (sign-ups allowed and the password checked by the caller)."""
    settings = svc.ctx.settings
    check_channel(settings, body.text("channel"))
    if body.text("code_challenge"):
        raise bad_request(codes.VALIDATION_FAILED, "PKCE not supported for phone signups")
    if not settings.phone_enabled:
        raise _provider_disabled("Phone signups are disabled")
    phone = validate_phone(phone)
    existing = await in_transaction(svc.ctx, lambda conn: user_by_phone(conn, phone))
    if existing is not None and existing["phone_confirmed_at"] is None and settings.sms_autoconfirm:
        # As an e-mail sign-up (server/auth/signup.py): not a way into someone's unconfirmed account.
        await passwords.require_own_password(svc.limiter, request, phone, existing["encrypted_password"], password)
    password_hash = await passwords.hash_password(password)

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        user = await _register(svc, conn, request, phone, password_hash, data)
        expected = existing["encrypted_password"] if existing is not None else password_hash
        if user["encrypted_password"] != expected:  # another sign-up or an admin got there meanwhile
            raise unprocessable(codes.USER_ALREADY_EXISTS, "User already registered")
        if user["phone_confirmed_at"] is not None:  # autoconfirmed: signed in at once
            return await issue_session(svc.ctx, conn, request, user, "password")
        if existing is not None:  # its owner gets the code; the caller learns nothing of the account
            return sanitized_user({**user, "invited_at": None}, data, PROVIDER)
        return user_json(user)

    try:
        return json_response(request, await in_transaction(svc.ctx, work, "Database error updating user"))
    except _Registered as exists:
        if settings.mailer_autoconfirm or settings.sms_autoconfirm:
            raise unprocessable(codes.USER_ALREADY_EXISTS, "User already registered") from None
        return json_response(request, sanitized_user(exists.user, data, PROVIDER))


# POST /otp {phone}.

async def otp(svc: AuthService, request: Request, body: Body, *, create_default: bool = True) -> Response:
    """GoTrue's Otp then SmsOtp: a code to sign in with; an unknown (or unconfirmed) number is
    signed up first, unless create_user is false."""
    settings = svc.ctx.settings
    if body.text("email"):
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided")
    data = body.obj("data") or {}
    metadata.check("user_metadata", data)
    if not body.flag("create_user", create_default):
        known = validate_phone(body.text("phone"))
        if await in_transaction(svc.ctx, lambda conn: user_by_phone(conn, known)) is None:
            raise unprocessable(codes.OTP_DISABLED, "Signups not allowed for otp")
    if not settings.phone_enabled:
        raise _provider_disabled("Unsupported phone provider")
    check_channel(settings, body.text("channel"))
    phone = validate_phone(body.text("phone"))

    async def work(conn: AsyncConnection) -> dict[str, str]:
        user = await user_by_phone(conn, phone, lock=True)
        if user is None or user["phone_confirmed_at"] is None:
            gates.require_signup(settings)
            user = await _register(svc, conn, request, phone, None, data)
            if not settings.sms_autoconfirm:
                return {}  # GoTrue answers the sign-up's code with an empty object
        return _message(await phone_codes.send_code(svc, conn, request, user, phone, "confirmation"))

    return json_response(request, await in_transaction(svc.ctx, work, "Database error sending SMS"))


# POST /verify {phone, token, type: sms | phone_change}.

async def verify_post(svc: AuthService, request: Request, body: Body) -> Response:
    """GoTrue's VerifyParams.Validate, verifyUserAndToken and smsVerify for phone codes."""
    kind, token, token_hash = body.text("type"), body.text("token"), body.text("token_hash")
    email, raw_phone = body.text("email"), body.text("phone")
    if not kind:
        raise bad_request(codes.VALIDATION_FAILED, "Verify requires a verification type")
    if bool(token) == bool(token_hash):
        raise bad_request(codes.VALIDATION_FAILED, "Verify requires either a token or a token hash")
    if token_hash:  # codes sent by SMS are verified with the number, never by hash
        if email or raw_phone or body.text("redirect_to"):
            raise bad_request(codes.VALIDATION_FAILED, "Only the token_hash and type should be provided")
        raise bad_request(codes.VALIDATION_FAILED, "Invalid email verification type")
    if not raw_phone or email:
        if email and not raw_phone:  # an email code with a phone type: no user has an empty address
            validate_email(email)
            raise forbidden(codes.OTP_EXPIRED, EXPIRED)
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided on verify")
    phone = validate_phone(raw_phone)
    if kind not in VERIFY_TYPES:  # a mail type with a number: GoTrue looks up an empty address
        raise forbidden(codes.OTP_EXPIRED, EXPIRED)
    hashed = mail.token_hash(phone, token)
    ctx = svc.ctx

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        find = user_by_phone if kind == "sms" else user_by_phone_change
        user = await find(conn, phone, lock=True)
        if user is None:
            raise forbidden(codes.OTP_EXPIRED, EXPIRED)
        if user["is_banned"]:
            raise forbidden(codes.USER_BANNED, "User is banned")
        # Counted before the comparison; past the bound nothing is accepted (server.auth.wrong_codes).
        column = phone_codes.OTP_COLUMNS["confirmation" if kind == "sms" else "phone_change"][0]
        if not (await wrong_codes.take_try(conn, user["id"], column)
                and await phone_codes.code_matches(ctx.settings, conn, user, kind, phone, token, hashed)):
            await wrong_codes.wrong_try(conn, user["id"], column)
            raise CommitThen(forbidden(codes.OTP_EXPIRED, EXPIRED))  # the count stays
        await wrong_codes.right_try(conn, user["id"], (column,))
        if kind == "sms":
            await phone_codes.confirm_phone(conn, user["id"])
        else:
            await phone_codes.apply_phone_change(conn, user, phone)
        await phone_codes.became_permanent(conn, user["id"])
        await sessions.evict_least_recently_used(ctx, conn, user["id"])
        return await issue_session(ctx, conn, request, await written_user(conn, user["id"]), "otp")

    return json_response(request, await in_transaction(ctx, work, "Database error verifying user"))


# POST /resend {type: sms | phone_change}.

async def resend(svc: AuthService, request: Request, body: Body, kind: str) -> Response:
    """GoTrue's Resend for SMS codes (`kind` already one of its four types). The user is found by
    the number (or address) given; a phone_change code goes to the pending new number."""
    settings = svc.ctx.settings
    email, raw_phone = body.text("email"), body.text("phone")
    if not raw_phone and kind == "sms":
        raise bad_request(codes.VALIDATION_FAILED, "Type provided requires a phone number")
    if email and raw_phone:
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided.")
    if email:
        gates.require_email_provider(settings)
        email = validate_email(email)
    elif raw_phone:
        if not settings.phone_enabled:
            raise _provider_disabled("Phone logins are disabled")
    else:
        raise bad_request(codes.VALIDATION_FAILED, "Missing email address or phone number")
    phone = validate_phone(raw_phone) if raw_phone else ""

    async def work(conn: AsyncConnection) -> dict[str, str]:
        user = await (user_by_email(conn, email, lock=True) if email else user_by_phone(conn, phone, lock=True))
        if user is None:
            return {}
        if kind == "sms":
            if user["phone_confirmed_at"] is not None:
                return {}
            return _message(await phone_codes.send_code(svc, conn, request, user, phone, "confirmation"))
        if not user["phone_change"]:
            return {}
        return _message(await phone_codes.send_code(svc, conn, request, user, user["phone_change"], "phone_change"))

    return json_response(request, await in_transaction(svc.ctx, work, "Unable to process request"))


# PUT /user {phone}.

async def check_new_phone(conn: AsyncConnection, user: UserRow, raw_phone: str) -> str | None:
    """The number a PUT /user asks for, validated; None when it is the user's own already;
    422 phone_exists when another user has it."""
    phone = validate_phone(raw_phone)
    if phone == (user["phone"] or ""):
        return None
    if await users.phone_taken(conn, phone, besides=user["id"]):
        raise unprocessable(codes.PHONE_EXISTS, DUPLICATE_PHONE)
    return phone


async def change_phone(svc: AuthService, conn: AsyncConnection, request: Request, user: UserRow, phone: str,
                       channel: str = "") -> None:
    """GoTrue's UserUpdate with a new number: a phone_change code to it, or (autoconfirm) the
    change applied at once."""
    check_channel(svc.ctx.settings, channel)
    if svc.ctx.settings.sms_autoconfirm:
        await users.set_phone_change(conn, user["id"], phone)
        await phone_codes.apply_phone_change(conn, user, phone)
        await phone_codes.became_permanent(conn, user["id"])
        return
    await phone_codes.send_code(svc, conn, request, user, phone, "phone_change")
