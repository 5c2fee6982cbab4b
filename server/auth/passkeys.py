"""Passkeys, as GoTrue's passkey API (passkey_*.go, admin_passkeys.go).

A signed-in user registers passkeys (POST /passkeys/registration/options, then /verify), lists,
renames and deletes them; anyone signs in with one (POST /passkeys/authentication/options,
then /verify: a discoverable-credential ceremony, the authenticator names the user). Admins
list and delete a user's passkeys. With GOTRUE_PASSKEY_ENABLED off every /passkeys route
answers 404 `passkey_disabled` (the admin routes stay).

Each ceremony's state is a row of auth.webauthn_challenges, consumed (deleted) by its verify in
a transaction of its own before the answer is checked, so the challenge is used up whatever the
outcome and an answer is never accepted twice.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import webauthn
from server.auth.authn import SignedIn, signed_in
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, forbidden, not_found, unprocessable
from server.auth.http import Body, json_response, read_body
from server.auth.models import mfa_factors, users, webauthn_challenges, webauthn_credentials
from server.auth.models import sessions as session_rows
from server.auth.models.users import UserRow, timestamp, user_by_id
from server.auth.service import AuthService
from server.auth.session_tokens import CommitThen, issue_session
from server.core.caller import Caller

REGISTRATION = "registration"
AUTHENTICATION = "authentication"
MAX_FRIENDLY_NAME = 120  # characters
USER_NOT_FOUND = "User not found"
# Names of well-known authenticators by AAGUID (GoTrue embeds passkeydeveloper's list);
# any other authenticator's passkey is called "Passkey".
_AAGUID_NAMES = {
    "fbfc3007-154e-4ecc-8c0b-6e020557d7bd": "iCloud Keychain",
    "dd4ec289-e01d-41c9-bb89-70fa845d4bf2": "iCloud Keychain (Managed)",
    "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4": "Google Password Manager",
    "adce0002-35bc-c60a-648b-0b25f1f05503": "Chrome on Mac",
    "771b48fd-d3d4-4f74-9232-fc157ab0507a": "Edge on Mac",
    "08987058-cadc-4b81-b6e1-30de50dcbe96": "Windows Hello",
    "9ddd1817-af5a-4672-a2b9-3e3dd95000a9": "Windows Hello",
    "6028b017-b1d4-4c02-b4b3-afcdafc96bb2": "Windows Hello",
    "53414d53-554e-4700-0000-000000000000": "Samsung Pass",
    "bada5566-a7aa-401f-bd96-45619a55120d": "1Password",
    "d548826e-79b4-db40-a3d8-11116f7e8349": "Bitwarden",
    "531126d6-e717-415c-9320-3d9aa6981239": "Dashlane",
    "b84e4048-15dc-4dd0-8640-f4f60813c8af": "NordPass",
    "0ea242b4-43c4-4a1b-8b17-dd6d0b6baec6": "Keeper",
    "50726f74-6f6e-5061-7373-50726f746f6e": "Proton Pass",
}


# -- gates -----------------------------------------------------------------------------------

def require_enabled(svc: AuthService) -> None:
    if not svc.ctx.settings.passkey_enabled:
        raise not_found(codes.PASSKEY_DISABLED, "Passkeys are disabled")


def _require_not_anonymous(signed: SignedIn) -> None:
    if signed.user["is_anonymous"]:
        raise forbidden(codes.NO_AUTHORIZATION, "Anonymous user not allowed to perform these actions")


def _require_not_sso(signed: SignedIn) -> None:
    if signed.user["is_sso_user"]:
        raise unprocessable(codes.VALIDATION_FAILED, "SSO users cannot register passkeys")


async def _require_management_aal(conn: AsyncConnection, signed: SignedIn) -> None:
    """GoTrue's requirePasskeyManagementAAL: with a verified MFA factor, adding or removing a
    passkey needs an aal2 session (a user without one can never reach aal2)."""
    if await mfa_factors.has_verified(conn, signed.user["id"]) and (
            signed.session_id is None or await session_rows.aal(conn, signed.session_id) != "aal2"):
        raise forbidden(codes.INSUFFICIENT_AAL, "AAL2 session is required to manage passkeys when MFA is enabled")


# -- requests --------------------------------------------------------------------------------

def _verify_params(body: Body) -> tuple[uuid.UUID, Any]:
    challenge_id = body.text("challenge_id")
    if not challenge_id:
        raise bad_request(codes.VALIDATION_FAILED, "challenge_id is required")
    credential = body.data.get("credential")
    if credential is None:
        raise bad_request(codes.VALIDATION_FAILED, "credential is required")
    try:
        return uuid.UUID(challenge_id), credential
    except ValueError:
        raise bad_request(codes.VALIDATION_FAILED, "challenge_id must be a valid UUID") from None


def _passkey_id(request: Request) -> uuid.UUID:
    try:
        return uuid.UUID(request.path_params["passkey_id"])
    except ValueError:
        raise not_found(codes.VALIDATION_FAILED, "Passkey not found") from None


def _verification_failed(failed: webauthn.CeremonyFailed | None = None) -> AuthError:
    """GoTrue's two messages: an answer that cannot be read, and one that does not verify."""
    message = "Invalid credential response" if failed and failed.malformed else "Credential verification failed"
    return bad_request(codes.WEBAUTHN_VERIFICATION_FAILED, message)


# -- challenges ------------------------------------------------------------------------------

async def _store_challenge(svc: AuthService, conn: AsyncConnection, kind: str, user_id: uuid.UUID | None,
                           rp: webauthn.RelyingParty, session: webauthn.Session) -> tuple[uuid.UUID, int]:
    """Keep a ceremony's state until its verify; its id and expiry (unix time)."""
    await webauthn_challenges.sweep(conn)
    lifetime = timedelta(seconds=svc.ctx.settings.webauthn_challenge_expiry)
    expires_at, expires_unix = await webauthn_challenges.expiry(conn, lifetime)
    challenge_id = uuid.uuid4()
    await webauthn_challenges.insert(conn, challenge_id, user_id, kind, session.to_json(rp, timestamp(expires_at) or ""),
                                     expires_at)
    return challenge_id, expires_unix


async def _consume_challenge(conn: AsyncConnection, challenge_id: uuid.UUID, kind: str,
                             user_id: uuid.UUID | None) -> webauthn.Session:
    """GoTrue's ConsumeWebAuthnChallengeByID: delete the challenge and return its state (an
    expired one is deleted all the same)."""
    row = await webauthn_challenges.consume(conn, challenge_id, kind, user_id)
    if row is None:
        raise bad_request(codes.WEBAUTHN_CHALLENGE_NOT_FOUND, "Challenge not found or already used")
    if row[1]:
        raise CommitThen(bad_request(codes.WEBAUTHN_CHALLENGE_EXPIRED, "Challenge has expired"))
    return webauthn.Session.from_json(row[0])


# -- credentials -----------------------------------------------------------------------------

def _list_item(row: dict[str, Any]) -> dict[str, Any]:
    """GoTrue's PasskeyListItem (friendly_name and last_used_at left out when empty)."""
    out: dict[str, Any] = {"id": str(row["id"])}
    if row["friendly_name"]:
        out["friendly_name"] = row["friendly_name"]
    out["created_at"] = timestamp(row["created_at"])
    if row["last_used_at"] is not None:
        out["last_used_at"] = timestamp(row["last_used_at"])
    return out


async def _passkeys_of(conn: AsyncConnection, user_id: uuid.UUID) -> list[dict[str, Any]]:
    return [_list_item(row) for row in await webauthn_credentials.of_user(conn, user_id)]


def _friendly_name(aaguid: str) -> str:
    return _AAGUID_NAMES.get(aaguid, "Passkey")


def _user_names(user: UserRow) -> tuple[str, str]:
    """The WebAuthn user name (email, else phone) and display name (user_metadata.name, else the name)."""
    name = user["email"] or user["phone"] or ""
    display = (user["raw_user_meta_data"] or {}).get("name")
    return name, display if isinstance(display, str) and display else name


# -- registration ----------------------------------------------------------------------------

async def registration_options(svc: AuthService, request: Request, caller: Caller) -> Response:
    rp = webauthn.relying_party(svc.ctx)

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        signed = await signed_in(conn, caller)
        _require_not_anonymous(signed)
        _require_not_sso(signed)
        await _require_management_aal(conn, signed)
        existing = await webauthn_credentials.credential_ids(conn, signed.user["id"])
        if len(existing) >= svc.ctx.settings.passkey_max_per_user:
            raise unprocessable(codes.TOO_MANY_PASSKEYS, "Maximum number of passkeys reached")
        name, display = _user_names(signed.user)
        options, session = webauthn.registration_options(
            rp, user_handle=webauthn.user_handle(signed.user["id"]), user_name=name, display_name=display,
            exclude=existing, discoverable=True)
        challenge_id, expires_at = await _store_challenge(svc, conn, REGISTRATION, signed.user["id"], rp, session)
        return {"challenge_id": str(challenge_id), "options": options, "expires_at": expires_at}

    return json_response(request, await in_transaction(svc.ctx, work))


async def registration_verify(svc: AuthService, request: Request, caller: Caller) -> Response:
    challenge_id, credential = _verify_params(await read_body(request))
    rp = webauthn.relying_party(svc.ctx)

    async def consume(conn: AsyncConnection) -> tuple[SignedIn, webauthn.Session]:
        signed = await signed_in(conn, caller)
        _require_not_anonymous(signed)
        _require_not_sso(signed)
        await _require_management_aal(conn, signed)
        return signed, await _consume_challenge(conn, challenge_id, REGISTRATION, signed.user["id"])

    signed, session = await in_transaction(svc.ctx, consume)
    return json_response(request, await in_transaction(
        svc.ctx, lambda conn: _register(svc, conn, signed, rp, session, credential)))


async def _register(svc: AuthService, conn: AsyncConnection, signed: SignedIn, rp: webauthn.RelyingParty,
                    session: webauthn.Session, credential: Any) -> dict[str, Any]:
    try:
        new = webauthn.verify_registration(rp, session, credential)
    except webauthn.CeremonyFailed as failed:
        raise _verification_failed(failed) from None
    user_id = signed.user["id"]
    # The user's row lock orders concurrent registrations, so the limit holds.
    await users.lock(conn, user_id)
    if await webauthn_credentials.count(conn, user_id) >= svc.ctx.settings.passkey_max_per_user:
        raise unprocessable(codes.TOO_MANY_PASSKEYS, "Maximum number of passkeys reached")
    aaguid = None if new.aaguid == "00000000-0000-0000-0000-000000000000" else new.aaguid
    row = await webauthn_credentials.insert(
        conn, user_id, credential_id=new.credential_id, public_key=new.public_key, attestation_type=new.attestation_type,
        aaguid=aaguid, sign_count=new.sign_count, transports=new.transports, backup_eligible=new.backup_eligible,
        backed_up=new.backed_up, friendly_name=_friendly_name(new.aaguid))
    if row is None:
        raise unprocessable(codes.WEBAUTHN_CREDENTIAL_EXISTS, "This credential is already registered")
    return {"id": str(row["id"]), **({"friendly_name": row["friendly_name"]} if row["friendly_name"] else {}),
            "created_at": timestamp(row["created_at"])}


# -- sign-in ---------------------------------------------------------------------------------

async def authentication_options(svc: AuthService, request: Request) -> Response:
    await svc.limiter.check("passkey", request)
    await read_body(request, allow_empty=True)  # gotrue_meta_security (captcha) is not checked
    rp = webauthn.relying_party(svc.ctx)
    options, session = webauthn.authentication_options(rp, user_handle=None, allowed=[])

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        challenge_id, expires_at = await _store_challenge(svc, conn, AUTHENTICATION, None, rp, session)
        return {"challenge_id": str(challenge_id), "options": options, "expires_at": expires_at}

    return json_response(request, await in_transaction(svc.ctx, work))


async def authentication_verify(svc: AuthService, request: Request) -> Response:
    challenge_id, credential = _verify_params(await read_body(request))
    rp = webauthn.relying_party(svc.ctx)

    session = await in_transaction(svc.ctx, lambda conn: _consume_challenge(conn, challenge_id, AUTHENTICATION, None))
    return json_response(request, await in_transaction(
        svc.ctx, lambda conn: _sign_in(svc, conn, request, rp, session, credential)))


async def _sign_in(svc: AuthService, conn: AsyncConnection, request: Request, rp: webauthn.RelyingParty,
                   session: webauthn.Session, credential: Any) -> dict[str, Any]:
    try:
        assertion = webauthn.read_assertion(credential)
    except webauthn.CeremonyFailed as failed:
        raise _verification_failed(failed) from None
    # Discoverable sign-in: the authenticator names the user (GoTrue's user handle is the id's text).
    try:
        user_id = uuid.UUID((assertion.user_handle or b"").decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        raise _verification_failed() from None
    stored = await webauthn_credentials.for_sign_in(conn, assertion.credential_id, user_id)
    if stored is None:
        raise _verification_failed()
    passkey_id, public_key, stored_count = stored
    try:
        sign_count = webauthn.verify_authentication(rp, session, assertion, public_key=public_key,
                                                    sign_count=stored_count)
    except webauthn.CeremonyFailed as failed:
        raise _verification_failed(failed) from None
    user = await user_by_id(conn, user_id)
    if user is None:
        raise _verification_failed()
    if user["email"] and user["email_confirmed_at"] is None:
        raise forbidden(codes.EMAIL_NOT_CONFIRMED, "Email not confirmed")
    if user["phone"] and user["phone_confirmed_at"] is None:
        raise forbidden(codes.PHONE_NOT_CONFIRMED, "Phone not confirmed")
    if user["is_banned"]:
        raise forbidden(codes.USER_BANNED, "User is banned")
    await webauthn_credentials.used(conn, passkey_id, sign_count)
    return await issue_session(svc.ctx, conn, request, user, "passkey")


# -- management ------------------------------------------------------------------------------

async def list_passkeys(svc: AuthService, request: Request, caller: Caller) -> Response:

    async def work(conn: AsyncConnection) -> list[dict[str, Any]]:
        signed = await signed_in(conn, caller)
        return await _passkeys_of(conn, signed.user["id"])

    return json_response(request, await in_transaction(svc.ctx, work))


async def update_passkey(svc: AuthService, request: Request, caller: Caller) -> Response:
    passkey_id = _passkey_id(request)
    name = (await read_body(request)).text("friendly_name")
    if not name:
        raise bad_request(codes.VALIDATION_FAILED, "friendly_name is required")
    if len(name) > MAX_FRIENDLY_NAME:
        raise bad_request(codes.VALIDATION_FAILED, f"friendly_name must be {MAX_FRIENDLY_NAME} characters or less")

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        signed = await signed_in(conn, caller)
        row = await webauthn_credentials.rename(conn, passkey_id, signed.user["id"], name)
        if row is None:
            raise not_found(codes.VALIDATION_FAILED, "Passkey not found")
        return _list_item(row)

    return json_response(request, await in_transaction(svc.ctx, work))


async def delete_passkey(svc: AuthService, request: Request, caller: Caller) -> Response:

    async def work(conn: AsyncConnection) -> None:
        signed = await signed_in(conn, caller)
        await _require_management_aal(conn, signed)
        await _delete(conn, _passkey_id(request), signed.user["id"])

    await in_transaction(svc.ctx, work)
    return Response(status_code=204)


async def _delete(conn: AsyncConnection, passkey_id: uuid.UUID, user_id: uuid.UUID) -> None:
    if not await webauthn_credentials.delete(conn, passkey_id, user_id):
        raise not_found(codes.VALIDATION_FAILED, "Passkey not found")


# -- admin -----------------------------------------------------------------------------------

async def _target_user(conn: AsyncConnection, request: Request) -> uuid.UUID:
    """GoTrue's loadUser for /admin/users/{user_id}/...: the user must exist."""
    try:
        user_id = uuid.UUID(request.path_params["user_id"])
    except ValueError:
        raise not_found(codes.USER_NOT_FOUND, USER_NOT_FOUND) from None
    if not await users.exists(conn, user_id):
        raise not_found(codes.USER_NOT_FOUND, USER_NOT_FOUND)
    return user_id


async def admin_list_passkeys(svc: AuthService, request: Request) -> Response:

    async def work(conn: AsyncConnection) -> list[dict[str, Any]]:
        return await _passkeys_of(conn, await _target_user(conn, request))

    return json_response(request, await in_transaction(svc.ctx, work))


async def admin_delete_passkey(svc: AuthService, request: Request) -> Response:

    async def work(conn: AsyncConnection) -> None:
        user_id = await _target_user(conn, request)
        await _delete(conn, _passkey_id(request), user_id)

    await in_transaction(svc.ctx, work)
    return Response(status_code=204)
