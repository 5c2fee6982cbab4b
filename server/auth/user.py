"""GET /user and PUT /user: the signed-in user's own record."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import mail, metadata, passwords, phone_numbers, pkce, reauthenticate, sessions
from server.auth import phone as phone_auth
from server.auth.authn import SignedIn, signed_in
from server.auth.db import in_transaction
from server.auth.errors import AuthError, forbidden, unprocessable
from server.auth.http import json_response, read_body
from server.auth.models import identities as identity_rows
from server.auth.models import one_time_tokens, users
from server.auth.models import sessions as session_rows
from server.auth.models.users import DUPLICATE_EMAIL, UserRow, email_identity_data, user_json, written_user
from server.auth.service import AuthService, validate_email
from server.core.caller import Caller


async def get_user(svc: AuthService, request: Request, caller: Caller) -> Response:
    signed = await in_transaction(svc.ctx, lambda conn: signed_in(conn, caller))
    return json_response(request, user_json(signed.user))


def merge_metadata(current: dict[str, Any] | None, changes: dict[str, Any]) -> dict[str, Any]:
    """GoTrue's UpdateUserMetaData: keys are replaced, a null value removes the key."""
    merged = dict(current or {})
    for key, value in changes.items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


async def update_user(svc: AuthService, request: Request, caller: Caller) -> Response:
    ctx = svc.ctx
    await svc.limiter.check("user", request)
    body = await read_body(request)
    password, email, data = body.opt_text("password"), body.text("email"), body.obj("data")
    if body.obj("app_metadata") is not None:
        raise forbidden(codes.NOT_ADMIN, "Updating app_metadata requires admin privileges")
    metadata.check("user_metadata", data)
    if password is not None:
        passwords.check_strength(ctx.settings, password)
    if email:
        email = validate_email(email)
    challenge = pkce.challenge_from_body(body)  # PKCE: the e-mail change link redirects with ?code=
    phone = phone_numbers.validate_phone(body.text("phone")) if body.text("phone") else ""
    signed = await in_transaction(ctx, lambda conn: _guarded(conn, caller, password, email, phone))
    if password is not None:  # GoTrue checks (and spends) the nonce before the password itself
        await in_transaction(ctx, lambda conn: reauthenticate.check_password_change(svc, conn, signed, body.text("nonce")))
    new_hash = None
    if password is not None:
        if await passwords.verify_password(password, signed.user["encrypted_password"]):
            raise unprocessable(codes.SAME_PASSWORD, "New password should be different from the old password.")
        new_hash = await passwords.hash_password(password)
    redirect_to = mail.redirect_target(ctx, request.query_params.get("redirect_to"))

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        current = await signed_in(conn, caller, lock=True)
        user_id = current.user["id"]
        if data is not None:
            merged = merge_metadata(current.user["raw_user_meta_data"], data)
            metadata.check_merged("user_metadata", current.user["raw_user_meta_data"], merged)
            await users.update_user_metadata(conn, user_id, merged)
        if new_hash is not None:
            await users.set_password(conn, user_id, new_hash)
            # A new password ends every other session of the user (GoTrue's UpdatePassword).
            await sessions.end_reason(conn, "password_changed")
            await session_rows.delete_others(conn, user_id, current.session_id)
        if email and email != (current.user["email"] or "").lower():
            await _change_email(svc, conn, current, email, redirect_to, challenge=challenge)
        if phone and (new_phone := await phone_auth.check_new_phone(conn, current.user, phone)):
            await phone_auth.change_phone(svc, conn, request, current.user, new_phone, body.text("channel"))
        return user_json(await written_user(conn, user_id))

    return json_response(request, await in_transaction(ctx, work, "Database error updating user"))


async def _guarded(conn: AsyncConnection, caller: Caller, password: str | None, email: str,
                   phone: str) -> SignedIn:
    """The signed-in user, who must hold an aal2 session to change the password, the e-mail address or the
    phone number once a factor of theirs is verified (GoTrue's UserUpdate: 401 insufficient_aal)."""
    signed = await signed_in(conn, caller)
    user = signed.user
    guarded = (bool(password) or (bool(email) and email != (user["email"] or "").lower())
               or (bool(phone) and phone != (user["phone"] or "")))
    if guarded and any(f.get("status") == "verified" for f in user["factors"]):
        aal = "aal1" if signed.session_id is None else await session_rows.aal(conn, signed.session_id)
        if aal != "aal2":
            raise AuthError(401, codes.INSUFFICIENT_AAL,
                            "AAL2 session is required to update email or password when MFA is enabled.")
    return signed


async def _change_email(svc: AuthService, conn: AsyncConnection, signed: SignedIn, email: str, redirect_to: str,
                        *, challenge: pkce.Challenge | None = None) -> None:
    if await users.email_held(conn, email, besides=signed.user["id"]):
        raise unprocessable(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
    if svc.ctx.settings.mailer_autoconfirm or signed.user["is_anonymous"]:
        await apply_email_change(conn, signed.user, email)
        return
    await svc.limiter.check_email()
    prefix = await pkce.start(conn, svc.ctx.settings.flow_state_expiry, challenge, user_id=signed.user["id"],
                              auth_method="email_change", provider_type="email_change")
    otp = mail.new_otp()
    hashed = prefix + mail.token_hash(email, otp)
    await users.set_email_change(conn, signed.user["id"], email)
    await users.set_code(conn, signed.user["id"], "email_change_token_new", "email_change_sent_at", hashed)
    await one_time_tokens.save(conn, signed.user["id"], "email_change_token_new", hashed, email)
    await mail.send(svc.ctx, conn, to=email, kind="email_change", otp=otp,
                    link=mail.verify_link(svc.ctx, hashed, "email_change", redirect_to), user_id=signed.user["id"])


async def apply_email_change(conn: AsyncConnection, user: UserRow, email: str) -> None:
    """Set the new address (confirmed), its identity and providers; an anonymous user becomes permanent."""
    user_id = user["id"]
    await users.apply_email_change(conn, user_id, email)
    identity = email_identity_data(user_id, email, {}, True)
    await identity_rows.upsert_email(conn, user_id, identity)
    await users.sync_metadata_email(conn, user_id, email)
