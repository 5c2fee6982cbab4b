"""Mailed one-time codes: POST /recover, /otp, /magiclink, /resend and GET|POST /verify.

A code typed with its address dies at its fifth wrong try, whatever the client's address
(server.auth.wrong_codes); a link's hash is not guessable and is not counted."""

from __future__ import annotations

import uuid
from typing import Any
from urllib.parse import urlencode

from psycopg import AsyncConnection, sql
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from server.auth import email_confirmation, gates, invite, mail, metadata, pkce, sessions, wrong_codes
from server.auth import error_codes as codes
from server.auth import phone as phone_auth
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, forbidden, unprocessable
from server.auth.http import json_response, read_body
from server.auth.models import one_time_tokens, users
from server.auth.models.users import (
    UserRow,
    confirm_email,
    create_user,
    find_user,
    user_by_email,
    written_user,
)
from server.auth.service import AuthService, validate_email
from server.auth.session_tokens import CommitThen, issue_session
from server.auth.user import apply_email_change

VERIFY_TYPES = ("signup", "invite", "magiclink", "recovery", "email_change", "email")
# Which token column each verification type checks (email OTPs may be either kind).
_COLUMNS = {
    "signup": ("confirmation_token",), "invite": ("confirmation_token",),
    "recovery": ("recovery_token",), "magiclink": ("recovery_token", "confirmation_token"),
    "email": ("recovery_token", "confirmation_token"), "email_change": ("email_change_token_new",),
}
EXPIRED = "Token has expired or is invalid"


async def send_recovery(svc: AuthService, conn: AsyncConnection, user: UserRow, kind: str, redirect_to: str,
                        *, prefix: str = "") -> None:
    """A recovery or magic-link mail: both use the user's recovery token (`prefix`: pkce.start's)."""
    email = user["email"]
    if not email:  # an anonymous or phone user: nowhere to send the link
        raise bad_request(codes.VALIDATION_FAILED, "User has no email address")
    await svc.limiter.check_mail_frequency(conn, user["id"], "recovery_sent_at")
    otp = mail.new_otp()
    hashed = prefix + mail.token_hash(email, otp)
    await users.set_code(conn, user["id"], "recovery_token", "recovery_sent_at", hashed)
    await one_time_tokens.save(conn, user["id"], "recovery_token", hashed, email)
    await mail.send(svc.ctx, conn, to=email, kind=kind, otp=otp,
                    link=mail.verify_link(svc.ctx, hashed, kind, redirect_to), user_id=user["id"])


def _redirect(svc: AuthService, request: Request, body_value: str | None = None) -> str:
    return mail.redirect_target(svc.ctx, request.query_params.get("redirect_to") or body_value)


async def recover(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("recover", request)
    gates.require_email_provider(svc.ctx.settings)
    body = await read_body(request)
    email = validate_email(body.text("email"))
    challenge = pkce.challenge_from_body(body)
    mail.require_delivery(svc.ctx, email)
    redirect_to = _redirect(svc, request)

    async def work(conn: AsyncConnection) -> None:
        user = await user_by_email(conn, email, lock=True)
        if user is not None:  # an unknown address gets the same answer: no account enumeration
            prefix = await pkce.start(conn, svc.ctx.settings.flow_state_expiry, challenge, user_id=user["id"],
                                      auth_method="recovery", provider_type="recovery")
            await send_recovery(svc, conn, user, "recovery", redirect_to, prefix=prefix)

    await in_transaction(svc.ctx, work, "Error recovering user")
    return json_response(request, {})


async def otp(svc: AuthService, request: Request, *, create_default: bool = True, bucket: str = "otp") -> Response:
    await svc.limiter.check(bucket, request)
    body = await read_body(request)
    if body.text("phone"):
        return await phone_auth.otp(svc, request, body, create_default=create_default)
    gates.require_email_login(svc.ctx.settings)
    email = validate_email(body.text("email"))
    challenge = pkce.challenge_from_body(body)
    mail.require_delivery(svc.ctx, email)
    create_user_flag = body.flag("create_user", create_default)
    data = body.obj("data") or {}
    metadata.check("user_metadata", data)
    redirect_to = _redirect(svc, request, body.opt_text("redirect_to"))

    async def work(conn: AsyncConnection) -> None:
        user = await user_by_email(conn, email, lock=True)
        if user is None and not create_user_flag:
            raise unprocessable(codes.OTP_DISABLED, "Signups not allowed for otp")
        if user is None or user["email_confirmed_at"] is None:
            gates.require_signup(svc.ctx.settings)  # GoTrue's MagicLink signs such an address up
        if user is None:
            user_id = await create_user(conn, email=email, password_hash=None, user_meta=data,
                                        app_meta={"provider": "email", "providers": ["email"]})
            user = await written_user(conn, user_id)
        expiry = svc.ctx.settings.flow_state_expiry
        if user["email_confirmed_at"] is None:
            await svc.limiter.check_mail_frequency(conn, user["id"], "confirmation_sent_at")
            prefix = await pkce.start(conn, expiry, challenge, user_id=user["id"], auth_method="email/signup",
                                      provider_type="email")
            await email_confirmation.send(svc, conn, user["id"], email, redirect_to, prefix=prefix)
        else:
            prefix = await pkce.start(conn, expiry, challenge, user_id=user["id"], auth_method="magiclink",
                                      provider_type="magiclink")
            await send_recovery(svc, conn, user, "magiclink", redirect_to, prefix=prefix)

    await in_transaction(svc.ctx, work, "Database error sending magic link")
    return json_response(request, {})


async def magiclink(svc: AuthService, request: Request) -> Response:
    return await otp(svc, request, bucket="magiclink")


async def resend(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("resend", request)
    body = await read_body(request)
    kind = body.text("type")
    if kind not in ("signup", "email_change", "sms", "phone_change"):
        raise bad_request(codes.VALIDATION_FAILED, "Missing one of these types: signup, email_change, sms, phone_change")
    if kind in ("sms", "phone_change"):
        return await phone_auth.resend(svc, request, body, kind)
    if body.text("email"):  # GoTrue's ResendConfirmationParams.Validate, before the address is read
        gates.require_email_provider(svc.ctx.settings)
    email = validate_email(body.text("email"))
    challenge = pkce.challenge_from_body(body)
    mail.require_delivery(svc.ctx, email)
    redirect_to = _redirect(svc, request)
    expiry = svc.ctx.settings.flow_state_expiry

    async def work(conn: AsyncConnection) -> None:
        if kind == "signup":
            user = await user_by_email(conn, email, lock=True)
            if user is not None and user["email_confirmed_at"] is None:
                await svc.limiter.check_mail_frequency(conn, user["id"], "confirmation_sent_at")
                prefix = await pkce.start(conn, expiry, challenge, user_id=user["id"], auth_method="email/signup",
                                          provider_type="email/signup")
                await email_confirmation.send(svc, conn, user["id"], email, redirect_to, prefix=prefix)
            return
        user = await find_user(conn, sql.SQL("lower(u.email_change) = %s"), [email], lock=True)
        if user is not None:
            await svc.limiter.check_mail_frequency(conn, user["id"], "email_change_sent_at")
            prefix = await pkce.start(conn, expiry, challenge, user_id=user["id"], auth_method="email_change",
                                      provider_type="email_change")
            code = mail.new_otp()
            hashed = prefix + mail.token_hash(email, code)
            await users.set_code(conn, user["id"], "email_change_token_new", "email_change_sent_at", hashed)
            await mail.send(svc.ctx, conn, to=email, kind="email_change", otp=code,
                            link=mail.verify_link(svc.ctx, hashed, "email_change", redirect_to), user_id=user["id"])

    await in_transaction(svc.ctx, work, "Database error resending mail")
    return json_response(request, {})


async def _take_tries(conn: AsyncConnection, kind: str, email: str) -> list[uuid.UUID]:
    """A typed code names its user by address: count the try at each of their pending codes of
    `kind` (server.auth.wrong_codes) before any is compared; the users, locked. An e-mail
    change's code names the new address, which more than one user may be moving to."""
    user_ids = await users.lock_by_email(conn, email, changing_to=kind == "email_change")
    for user_id in user_ids:
        for column in _COLUMNS[kind]:
            await wrong_codes.take_try(conn, user_id, column)  # a code past its bound is deleted here
    return user_ids


async def _find_by_token(conn: AsyncConnection, kind: str, hashed: str | list[str]) -> UserRow | None:
    hashes = [hashed] if isinstance(hashed, str) else hashed
    for column in _COLUMNS[kind]:
        where = sql.SQL("u.{col} = any(%s) and u.{col} <> '' and u.{sent} + make_interval(secs => %s) > now()").format(
            col=sql.Identifier(column), sent=sql.Identifier(wrong_codes.SENT_AT[column]))
        user = await find_user(conn, where, [hashes, mail.OTP_EXPIRY_SECONDS], lock=True)
        if user is not None:
            return user
    return None


async def _verify(svc: AuthService, request: Request, kind: str, hashed: str | list[str], method: str,
                  *, pkce_method: str | None = None, typed_by: str | None = None) -> tuple[dict[str, Any], int]:
    """The session a verified code opens, and how many sessions were ended to make room for it.

    `typed_by`: the address of a code typed with it (not a link's hash), whose tries are
    counted: the code dies at its MAX_WRONG_CODES-th wrong one.

    A mailed code proves the mailbox, so at the session limit it ends the user's least
    recently used session instead of refusing: a learner locked out by forgotten devices
    gets back in through password recovery (a password sign-in keeps the refusal).
    With `pkce_method` (a PKCE flow's link) the answer is {"auth_code"} of the flow instead.
    """
    ctx = svc.ctx
    hashes = [hashed] if isinstance(hashed, str) else hashed

    async def work(conn: AsyncConnection) -> tuple[dict[str, Any], int]:
        tried = await _take_tries(conn, kind, typed_by) if typed_by is not None else []
        user = await _find_by_token(conn, kind, hashes)
        for tried_id in tried:
            if user is not None and tried_id == user["id"]:
                await wrong_codes.right_try(conn, tried_id, _COLUMNS[kind])
            else:
                for column in _COLUMNS[kind]:
                    await wrong_codes.wrong_try(conn, tried_id, column)
        if user is None:
            raise CommitThen(forbidden(codes.OTP_EXPIRED, EXPIRED))  # the counts stay
        if user["is_banned"]:
            raise forbidden(codes.USER_BANNED, "User is banned")
        user_id = user["id"]
        if kind == "email_change":
            new_email = user["email_change"]
            if not new_email:  # the change was withdrawn since the mail was sent
                raise forbidden(codes.OTP_EXPIRED, EXPIRED)
            await apply_email_change(conn, user, new_email)
        else:
            await users.spend_recovery_token(conn, user_id, hashes)
            if kind in ("signup", "invite"):
                await invite.accept(conn, user)
            await confirm_email(conn, user_id)  # spends every pending code, this one included
        if pkce_method is not None:  # the session comes from POST /token?grant_type=pkce
            return {"auth_code": await pkce.issue_auth_code(conn, user_id, pkce_method)}, 0
        evicted = await sessions.evict_least_recently_used(ctx, conn, user_id)
        return await issue_session(ctx, conn, request, await written_user(conn, user_id), method), evicted

    return await in_transaction(ctx, work, "Database error verifying user")


async def verify_post(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("token_verifications", request)
    body = await read_body(request)
    kind, token, token_hash = body.text("type"), body.text("token"), body.text("token_hash")
    email = body.text("email")
    if body.text("phone") or kind in phone_auth.VERIFY_TYPES:
        return await phone_auth.verify_post(svc, request, body)
    if kind not in VERIFY_TYPES:
        raise bad_request(codes.VALIDATION_FAILED, "Verify requires a verification type")
    typed_by = None
    if token_hash:
        hashed: str | list[str] = token_hash
    elif token and email:
        # A typed code also matches the pkce_-prefixed token of a PKCE flow's mail (GoTrue's isOtpValid).
        typed_by = validate_email(email)
        plain = mail.token_hash(typed_by, token)
        hashed = [plain, pkce.TOKEN_PREFIX + plain]
    else:
        raise bad_request(codes.VALIDATION_FAILED, "Only an email address or phone number should be provided on verify")
    session, _ = await _verify(svc, request, kind, hashed, "otp", typed_by=typed_by)
    return json_response(request, session)


async def verify_get(svc: AuthService, request: Request) -> Response:
    """A mail link: verify, then redirect with the session (or the error) in the URL fragment.

    When sessions were ended to make room, the fragment also says how many
    (`sessions_ended=N`), for the page to tell the user; supabase-js ignores the parameter.
    """
    await svc.limiter.check("token_verifications", request)
    kind = request.query_params.get("type", "")
    token = request.query_params.get("token", "")
    redirect_to = _redirect(svc, request)
    if kind not in VERIFY_TYPES or not token:
        raise bad_request(codes.VALIDATION_FAILED, "Verify requires a token and a verification type")
    method = {"signup": "email/signup", "email": "otp"}.get(kind, kind)
    # A PKCE flow's link (pkce_ token): redirect with ?code= of the flow, errors in the query too.
    pkce_method = pkce.link_method(kind) if token.startswith(pkce.TOKEN_PREFIX) else None
    try:
        session, evicted = await _verify(svc, request, kind, token, method, pkce_method=pkce_method)
    except AuthError as err:
        if err.status >= 500:
            raise
        if pkce_method is not None:
            if err.code == codes.OTP_EXPIRED:  # GoTrue's verifyTokenHash words it for links
                err = AuthError(err.status, err.code, "Email link is invalid or has expired")
            return RedirectResponse(pkce.error_redirect(redirect_to, err, in_query=True), status_code=303)
        fragment = urlencode({"error": "access_denied", "error_code": err.code,
                              "error_description": "Email link is invalid or has expired"})
        return RedirectResponse(f"{redirect_to}#{fragment}", status_code=303)
    if pkce_method is not None:
        return RedirectResponse(pkce.code_redirect(redirect_to, session["auth_code"]), status_code=303)
    params: dict[str, Any] = {"access_token": session["access_token"], "expires_at": session["expires_at"],
                              "expires_in": session["expires_in"], "refresh_token": session["refresh_token"],
                              "token_type": "bearer", "type": kind}
    if evicted:
        params["sessions_ended"] = evicted
    fragment = urlencode(params)
    return RedirectResponse(f"{redirect_to}#{fragment}", status_code=303)
