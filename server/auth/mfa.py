"""Multi-factor authentication: /factors enroll, challenge, verify, unenroll, and the admin's
/admin/users/{id}/factors (GoTrue's mfa.go and admin.go).

The shape: each factor type is one `FactorKind` object (server.auth.mfa_factor), registered in
`KINDS` by its factor_type. The handlers here do what all types share, in GoTrue's order: the
caller (Bearer token, not banned, not anonymous, its session and that session's aal), the
factor (the caller's own: another user's is 404), the type's settings gate; then they hand the
type-specific part to the kind: `enroll` creates the factor and answers its enroll body,
`challenge` creates a challenge, `verify` checks the answer to one. After a verify this module
marks the factor verified and raises the session to aal2: the kind's amr method joins the
session's mfa_amr_claims, the refresh token is swapped for a new one, the user's other
sessions below aal2 end and unverified factors of the same type go, all in one transaction.
Unenrolling a verified factor needs an aal2 session; the sessions it raised fall back to aal1.

A new factor type is one module with a FactorKind class and one line in KINDS.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth.authn import signed_in
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, forbidden, not_found, unprocessable
from server.auth.http import Body, json_response, path_uuid, read_body
from server.auth.mfa_factor import (
    FACTOR_NOT_FOUND,
    VERIFIED,
    FactorKind,
    MfaCall,
    challenge_id_of,
    check_friendly_name,
    enroll_disabled,
    name_conflict,
    owned_factor,
    verify_disabled,
)
from server.auth.mfa_json import factor_json
from server.auth.mfa_phone import PhoneKind
from server.auth.mfa_totp import TotpKind
from server.auth.mfa_webauthn import WebAuthnKind
from server.auth.models import mfa_amr_claims, mfa_factors
from server.auth.models import sessions as session_rows
from server.auth.models.mfa_factors import FactorRow
from server.auth.models.users import user_by_id, written_user
from server.auth.phone_numbers import validate_phone
from server.auth.service import AuthService
from server.auth.session_tokens import swap_refresh_token, token_response
from server.core.caller import Caller

__all__ = ["KINDS", "FactorKind"]

KINDS: dict[str, FactorKind] = {
    TotpKind.name: TotpKind(),
    PhoneKind.name: PhoneKind(),
    WebAuthnKind.name: WebAuthnKind(),
}

AAL2 = "aal2"
T = TypeVar("T")
BodyGetter = Callable[[], Body]


async def _body_later(request: Request) -> BodyGetter:
    """Read the body now (the connection is free while the client sends it) but answer a
    malformed one only where GoTrue parses it, after the caller and the factor are checked.
    A body over the bound is refused at once."""
    try:
        body = await read_body(request, allow_empty=True)
    except AuthError as err:
        if err.status == 413:
            raise
        error = err

        def fail() -> Body:
            raise error
        return fail
    return lambda: body


async def _call(svc: AuthService, request: Request, conn: AsyncConnection, caller: Caller) -> MfaCall:
    """GoTrue's requireAuthentication (its user part) and requireNotAnonymous, with the session's aal."""
    signed = await signed_in(conn, caller)
    if signed.user["is_banned"]:
        raise forbidden(codes.USER_BANNED, "User is banned")
    if caller.claims.get("is_anonymous") is True:
        raise forbidden(codes.NO_AUTHORIZATION, "Anonymous user not allowed to perform these actions")
    aal = "aal1" if signed.session_id is None else await session_rows.aal(conn, signed.session_id)
    return MfaCall(svc, request, conn, signed.user, signed.session_id, aal)


def _kind(factor_type: str) -> FactorKind:
    kind = KINDS.get(factor_type)
    if kind is None:
        raise bad_request(codes.VALIDATION_FAILED, "factor_type needs to be totp, phone, or webauthn")
    return kind


async def _with_factor(svc: AuthService, request: Request, caller: Caller,
                       work: Callable[[MfaCall, FactorRow], Awaitable[T]], *, rate_bucket: str | None = None) -> T:
    """Run `work` on the caller's factor named by the path, in one transaction."""

    async def run(conn: AsyncConnection) -> T:
        call = await _call(svc, request, conn, caller)
        factor_id = path_uuid(request, "factor_id")
        factor = await owned_factor(conn, call.user["id"], factor_id)
        if rate_bucket is not None:
            await svc.limiter.check(rate_bucket, request)
        return await work(call, factor)

    return await in_transaction(svc.ctx, run)


# -- user endpoints ----------------------------------------------------------------------


def _sessionless(message: str) -> AuthError:
    """A token without a session_id (signed by hand, not issued here): GoTrue answers 500 with
    this message; it is the caller's token that is wrong, so 403 here."""
    return forbidden(codes.SESSION_NOT_FOUND, message)


async def enroll(svc: AuthService, request: Request, caller: Caller) -> Response:
    body = await _body_later(request)

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        call = await _call(svc, request, conn, caller)
        if call.session_id is None:
            raise _sessionless("A valid session and a registered user are required to enroll a factor")
        params = body()
        kind = _kind(params.text("factor_type"))
        if not kind.enroll_enabled(call.settings):
            raise enroll_disabled(kind)
        return await kind.enroll(call, params)

    return json_response(request, await in_transaction(svc.ctx, work))


async def challenge(svc: AuthService, request: Request, caller: Caller) -> Response:
    body = await _body_later(request)

    async def work(call: MfaCall, factor: FactorRow) -> dict[str, Any]:
        kind = _kind(factor["factor_type"])
        if not kind.verify_enabled(call.settings):
            raise verify_disabled(kind, f"mfa_{kind.name}_verify_not_enabled")
        return await kind.challenge(call, factor, body)

    return json_response(request, await _with_factor(svc, request, caller, work, rate_bucket="mfa_challenge"))


async def verify(svc: AuthService, request: Request, caller: Caller) -> Response:
    body = await _body_later(request)

    async def work(call: MfaCall, factor: FactorRow) -> dict[str, Any]:
        params = body()
        challenge_id = challenge_id_of(params)
        if not params.text("code") and factor["factor_type"] != "webauthn":
            raise bad_request(codes.VALIDATION_FAILED, "Code needs to be non-empty")
        kind = _kind(factor["factor_type"])
        if not kind.verify_enabled(call.settings):
            raise verify_disabled(kind, kind.verify_disabled_code)
        await kind.verify(call, factor, challenge_id, params)
        return await _verified(call, factor, kind)

    return json_response(request, await _with_factor(svc, request, caller, work, rate_bucket="mfa_verify"))


async def _verified(call: MfaCall, factor: FactorRow, kind: FactorKind) -> dict[str, Any]:
    """After a right answer (GoTrue's verify*Factor transaction and updateMFASessionAndClaims)."""
    conn, user_id = call.conn, call.user["id"]
    if factor["status"] != VERIFIED:
        await mfa_factors.verified(conn, factor["id"])
    user = await written_user(conn, user_id)
    if call.session_id is None:
        raise _sessionless("Cannot read SessionId claim as UUID")
    session_id = call.session_id
    # The session may have ended while this verify waited for the factor's lock (another
    # verify ends the user's aal1 sessions): refused, not a 500 on its vanished row.
    if not await session_rows.lock(conn, session_id):
        raise forbidden(codes.SESSION_NOT_FOUND, "Session from session_id claim in JWT does not exist")
    await mfa_amr_claims.add(conn, session_id, kind.amr_method)
    refresh = await swap_refresh_token(conn, session_id, user_id)
    await session_rows.raise_to_aal2(conn, session_id, factor["id"])
    response = token_response(call.svc.ctx, user, session_id, refresh, await mfa_amr_claims.of_session(conn, session_id), AAL2)
    # Sessions that never reached aal2 end: the factor now guards the account.
    await session_rows.delete_below_aal2(conn, user_id)
    await mfa_factors.delete_unverified(conn, user_id, factor["factor_type"])
    return response


async def unenroll(svc: AuthService, request: Request, caller: Caller) -> Response:
    async def work(call: MfaCall, factor: FactorRow) -> dict[str, Any]:
        if call.session_id is None:
            raise _sessionless("A valid session and factor are required to unenroll a factor")
        if factor["status"] == VERIFIED and call.session_aal != AAL2:
            raise unprocessable(codes.INSUFFICIENT_AAL, "AAL2 required to unenroll verified factor")
        await _delete_factor(call.conn, factor)
        return {"id": str(factor["id"])}

    return json_response(request, await _with_factor(svc, request, caller, work))


async def _delete_factor(conn: AsyncConnection, factor: FactorRow) -> None:
    """Delete the factor; the sessions it raised fall back to aal1 without its amr method
    (GoTrue's DowngradeSessionsToAAL1)."""
    kind = KINDS.get(factor["factor_type"])
    if kind is not None:
        await mfa_amr_claims.delete_for_factor(conn, kind.amr_method, factor["id"])
    await session_rows.lower_to_aal1(conn, factor["user_id"], factor["id"])
    await mfa_factors.delete(conn, factor["id"])


# -- admin endpoints ---------------------------------------------------------------------


async def _admin_user_id(conn: AsyncConnection, request: Request) -> uuid.UUID:
    """GoTrue's loadUser for /admin/users/{user_id}/..."""
    user_id = path_uuid(request, "user_id")
    if await user_by_id(conn, user_id) is None:
        raise not_found(codes.USER_NOT_FOUND, "User not found")
    return user_id


async def _admin_factor(conn: AsyncConnection, request: Request) -> FactorRow:
    user_id = await _admin_user_id(conn, request)
    factor_id = path_uuid(request, "factor_id")
    return await owned_factor(conn, user_id, factor_id)


async def admin_list(svc: AuthService, request: Request) -> Response:

    async def work(conn: AsyncConnection) -> list[dict[str, Any]]:
        return [factor_json(f) for f in await mfa_factors.of_user(conn, await _admin_user_id(conn, request))]

    return json_response(request, await in_transaction(svc.ctx, work))


async def admin_update(svc: AuthService, request: Request) -> Response:
    body = await _body_later(request)

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        factor = await _admin_factor(conn, request)
        params = body()
        name, phone = params.text("friendly_name"), params.text("phone")
        if name:
            check_friendly_name(name)
            if await mfa_factors.name_taken(conn, factor["user_id"], name, factor["id"]):
                raise name_conflict(name)
            await mfa_factors.rename(conn, factor["id"], name)
        if phone and factor["factor_type"] == "phone":
            await mfa_factors.set_phone(conn, factor["id"], validate_phone(phone))
        updated = await mfa_factors.by_id(conn, factor["id"])
        if updated is None:
            raise not_found(codes.MFA_FACTOR_NOT_FOUND, FACTOR_NOT_FOUND)
        return factor_json(updated)

    return json_response(request, await in_transaction(svc.ctx, work, "Database error updating factor"))


async def admin_delete(svc: AuthService, request: Request) -> Response:

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        factor = await _admin_factor(conn, request)
        await _delete_factor(conn, factor)
        return factor_json(factor)

    return json_response(request, await in_transaction(svc.ctx, work, "Database error deleting factor"))
