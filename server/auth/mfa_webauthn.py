"""WebAuthn MFA factors, as GoTrue's enrollWebAuthnFactor, challengeWebAuthnFactor and
verifyWebAuthnFactor (go-webauthn's BeginRegistration / BeginLogin and their checks).

A factor is enrolled unverified, without a credential. Its first challenge is a registration
ceremony (`webauthn.type` "create": navigator.credentials.create() options); verifying it
stores the new credential (go-webauthn's Credential as JSON in `web_authn_credential`, its
AAGUID in `web_authn_aaguid`) and verifies the factor. A verified factor's challenges are
authentication ceremonies ("request"), open to the user's verified WebAuthn credentials, as
go-webauthn's BeginLogin(user) builds them.

Where GoTrue is loose, this is stricter: a "create" answer only verifies an unverified factor
(GoTrue would accept a brand-new credential as the second factor of a verified one), the sign
counter of the credential used is stored and must move forward, an answer that does not
verify is 422 `mfa_verification_failed` rather than GoTrue's 500, and a challenge dies at its
MAX_WRONG_CODES-th wrong answer (server.auth.mfa_factor.wrong_answer).
"""

from __future__ import annotations

import base64
import binascii
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar, NamedTuple

from server.auth import error_codes as codes
from server.auth import webauthn
from server.auth.errors import AuthError, bad_request, unprocessable
from server.auth.http import Body
from server.auth.mfa_factor import (
    VERIFIED,
    MfaCall,
    check_new_factor,
    find_challenge,
    insert_challenge,
    insert_factor,
    mark_challenge_verified,
    wrong_answer,
)
from server.auth.models import mfa_factors
from server.auth.models.mfa_challenges import ChallengeRow
from server.auth.models.mfa_factors import FactorRow
from server.auth.models.users import timestamp
from server.core.config import Settings

CREATE = "create"
REQUEST = "request"


def _invalid_response() -> AuthError:
    return bad_request(codes.VALIDATION_FAILED, "Invalid credential_response")


def _not_verified(failed: webauthn.CeremonyFailed | None = None) -> AuthError:
    if failed is not None and failed.malformed:
        return _invalid_response()
    return unprocessable(codes.MFA_VERIFICATION_FAILED, "Failed to validate WebAuthn MFA response")


# -- the stored credential -------------------------------------------------------------------

def credential_json(new: webauthn.NewCredential) -> dict[str, Any]:
    """go-webauthn's Credential as JSON (what GoTrue keeps in web_authn_credential)."""
    b64 = webauthn.std_b64
    return {"id": b64(new.credential_id), "publicKey": b64(new.public_key), "attestationType": new.attestation_type,
            "transport": new.transports,
            "flags": {"userPresent": True, "userVerified": new.user_verified, "backupEligible": new.backup_eligible,
                      "backupState": new.backed_up},
            "authenticator": {"AAGUID": b64(uuid.UUID(new.aaguid).bytes), "signCount": new.sign_count,
                              "cloneWarning": False, "attachment": ""}}


class _Credential(NamedTuple):
    """A verified factor's stored credential."""

    factor: FactorRow
    id: bytes
    public_key: bytes
    sign_count: int


def _credential(factor: FactorRow) -> _Credential | None:
    """A verified WebAuthn factor's credential (None for any other factor, or one without)."""
    data = factor["web_authn_credential"]
    if factor["factor_type"] != WebAuthnKind.name or factor["status"] != VERIFIED or not isinstance(data, dict):
        return None
    try:
        count = data.get("authenticator", {}).get("signCount", 0)
        return _Credential(factor, base64.b64decode(data["id"]), base64.b64decode(data["publicKey"]), int(count))
    except (KeyError, TypeError, ValueError, AttributeError, binascii.Error):
        return None


async def _credentials(call: MfaCall) -> list[_Credential]:
    """The user's verified WebAuthn factors' credentials (go-webauthn's User.WebAuthnCredentials())."""
    return [c for f in await mfa_factors.of_user(call.conn, call.user["id"]) if (c := _credential(f)) is not None]


class WebAuthnKind:
    name: ClassVar[str] = "webauthn"
    label: ClassVar[str] = "WebAuthn"
    amr_method: ClassVar[str] = "mfa/webauthn"
    verify_disabled_code: ClassVar[str] = codes.MFA_WEBAUTHN_ENROLL_NOT_ENABLED  # GoTrue's quirk: the enroll code at verify

    def enroll_enabled(self, settings: Settings) -> bool:
        return settings.mfa_web_authn_enroll_enabled

    def verify_enabled(self, settings: Settings) -> bool:
        return settings.mfa_web_authn_verify_enabled

    async def enroll(self, call: MfaCall, body: Body) -> dict[str, Any]:
        friendly_name = body.text("friendly_name")
        await check_new_factor(call, friendly_name)
        factor = await insert_factor(call, factor_type=self.name, friendly_name=friendly_name)
        return {"id": str(factor["id"]), "type": self.name, "friendly_name": factor["friendly_name"] or ""}

    async def challenge(self, call: MfaCall, factor: FactorRow, body: Callable[[], Body]) -> dict[str, Any]:
        body().obj("webauthn")  # GoTrue parses the body (rpId and rpOrigins of auth-js are not used)
        rp = webauthn.relying_party(call.svc.ctx)
        user_handle = webauthn.user_handle(call.user["id"])
        known = [c.id for c in await _credentials(call)]
        if factor["status"] == VERIFIED:
            kind = REQUEST
            options, session = webauthn.authentication_options(rp, user_handle=user_handle, allowed=known)
        else:
            kind = CREATE
            name = call.user["email"] or ""
            options, session = webauthn.registration_options(
                rp, user_handle=user_handle, user_name=name, display_name=name, exclude=known,
                discoverable=False)
        expires = timestamp(datetime.now(UTC) + timedelta(milliseconds=webauthn.TIMEOUT_MS)) or ""
        answer = await insert_challenge(call, factor, web_authn_session_data=session.to_json(rp, expires))
        return {**answer, "webauthn": {"type": kind, "credential_options": {"publicKey": options}}}

    async def verify(self, call: MfaCall, factor: FactorRow, challenge_id: uuid.UUID | None, body: Body) -> None:
        params = body.obj("webauthn")
        if params is None:
            raise bad_request(codes.VALIDATION_FAILED, "WebAuthn config required")
        kind, response = params.get("type"), params.get("credential_response")
        if kind not in (CREATE, REQUEST):
            raise bad_request(codes.VALIDATION_FAILED, "WebAuthn type must be create or request")
        if response is None:
            raise bad_request(codes.VALIDATION_FAILED, "credential_response required")
        challenge = await find_challenge(call, factor, challenge_id)
        try:
            await self._check(call, factor, challenge, kind, response)
        except AuthError as wrong:
            if wrong.status >= 500:
                raise
            await wrong_answer(call, challenge, wrong)  # counted: the challenge dies at the bound
        await mfa_factors.set_last_webauthn_challenge(call.conn, factor["id"], _last_challenge(challenge, kind, response))
        await mark_challenge_verified(call, challenge)

    async def _check(self, call: MfaCall, factor: FactorRow, challenge: ChallengeRow, kind: str,
                     response: Any) -> None:
        """The answer to the challenge, checked (and the credential written); AuthError when
        it is wrong."""
        try:
            session = webauthn.Session.from_json(challenge["web_authn_session_data"])
        except (KeyError, TypeError, ValueError, binascii.Error):
            raise _not_verified() from None
        # A registration answers an unverified factor's challenge, an assertion a verified one's.
        if kind != (REQUEST if factor["status"] == VERIFIED else CREATE):
            raise _not_verified()
        rp = webauthn.relying_party(call.svc.ctx)
        if kind == CREATE:
            await self._register(call, factor, rp, session, response)
        else:
            await self._authenticate(call, rp, session, response)

    @staticmethod
    async def _register(call: MfaCall, factor: FactorRow, rp: webauthn.RelyingParty, session: webauthn.Session,
                        response: Any) -> None:
        try:
            new = webauthn.verify_registration(rp, session, response)
        except webauthn.CeremonyFailed as failed:
            raise _not_verified(failed) from None
        await mfa_factors.set_webauthn_credential(call.conn, factor["id"], credential_json(new), uuid.UUID(new.aaguid))

    @staticmethod
    async def _authenticate(call: MfaCall, rp: webauthn.RelyingParty, session: webauthn.Session,
                            response: Any) -> None:
        try:
            assertion = webauthn.read_assertion(response)
        except webauthn.CeremonyFailed as failed:
            raise _not_verified(failed) from None
        if assertion.user_handle is not None and assertion.user_handle != webauthn.user_handle(call.user["id"]):
            raise _not_verified()
        owner = next((c for c in await _credentials(call) if c.id == assertion.credential_id), None)
        if owner is None:
            raise _not_verified()
        try:
            new_count = webauthn.verify_authentication(rp, session, assertion, public_key=owner.public_key,
                                                       sign_count=owner.sign_count)
        except webauthn.CeremonyFailed as failed:
            raise _not_verified(failed) from None
        # The counter moves only from the value checked: of two assertions racing on one counter
        # value, the second finds it moved and fails.
        if not await mfa_factors.advance_sign_count(call.conn, owner.factor["id"], owner.sign_count, new_count):
            raise _not_verified()


def _last_challenge(challenge: ChallengeRow, kind: str, response: Any) -> dict[str, Any]:
    """GoTrue's LastWebAuthnChallengeData: the challenge answered, its type and the answer."""
    return {"challenge": {"id": str(challenge["id"]), "factor_id": str(challenge["factor_id"]),
                          "created_at": timestamp(challenge["created_at"]), "ip_address": challenge["ip_address"]},
            "type": kind, "credential_response": response}
