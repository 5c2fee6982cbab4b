"""WebAuthn ceremonies around py_webauthn, as GoTrue runs them with go-webauthn.

The relying party comes from the settings (GOTRUE_WEBAUTHN_RP_ID, _RP_DISPLAY_NAME,
_RP_ORIGINS), by default the site URL's host and origin. A ceremony's options go to the client
and its state (go-webauthn's SessionData: the challenge, the user handle, the credentials
allowed) stays on the server until the client's answer is verified against it: challenge,
origin, relying-party id hash, user presence, signature and sign counter are all checked by
py_webauthn.

Passkeys and the WebAuthn MFA factor share these ceremonies and these error codes.
"""

from __future__ import annotations

import base64
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import (
    base64url_to_bytes,
    bytes_to_base64url,
    parse_authentication_credential_json,
    parse_registration_credential_json,
)
from webauthn.helpers.options_to_json_dict import options_to_json_dict
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AttestationFormat,
    AuthenticationCredential,
    AuthenticatorSelectionCriteria,
    CredentialDeviceType,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from server.auth.mail import site_url
from server.core.context import AppContext

# go-webauthn's default ceremony timeout (what the browser is told), in milliseconds.
TIMEOUT_MS = 300_000
# A credential id is at most 1023 bytes (WebAuthn level 3, 5.8.3); a user handle at most 64.
MAX_CREDENTIAL_ID = 1023
MAX_USER_HANDLE = 64


class CeremonyFailed(Exception):
    """The client's answer does not verify: `malformed` when it cannot even be read (not a
    credential's JSON, bad base64), else wrong (origin, rp id, challenge, signature, counter)."""

    def __init__(self, reason: str, *, malformed: bool = False) -> None:
        super().__init__(reason)
        self.malformed = malformed


@dataclass(frozen=True)
class RelyingParty:
    id: str
    name: str
    origins: tuple[str, ...]


def relying_party(ctx: AppContext) -> RelyingParty:
    settings = ctx.settings
    site = urlsplit(site_url(ctx))
    rp_id = settings.webauthn_rp_id or site.hostname or "localhost"
    origins = settings.webauthn_rp_origins or (f"{site.scheme}://{site.netloc}",)
    return RelyingParty(rp_id, settings.webauthn_rp_display_name or rp_id, tuple(origins))


@dataclass(frozen=True)
class Session:
    """go-webauthn's SessionData: what the verify step checks the answer against."""

    challenge: bytes
    user_handle: bytes | None
    allowed: tuple[bytes, ...]
    user_verification: str

    def to_json(self, rp: RelyingParty, expires: str) -> dict[str, Any]:
        out: dict[str, Any] = {"challenge": bytes_to_base64url(self.challenge), "rpId": rp.id,
                               "user_id": std_b64(self.user_handle) if self.user_handle is not None else None,
                               "expires": expires, "userVerification": self.user_verification}
        if self.allowed:
            out["allowed_credentials"] = [std_b64(c) for c in self.allowed]
        return out

    @staticmethod
    def from_json(data: dict[str, Any]) -> Session:
        user_id = data.get("user_id")
        return Session(base64url_to_bytes(data["challenge"]),
                       base64.b64decode(user_id) if user_id else None,
                       tuple(base64.b64decode(c) for c in data.get("allowed_credentials") or ()),
                       str(data.get("userVerification") or UserVerificationRequirement.PREFERRED.value))


def std_b64(value: bytes) -> str:
    """Bytes as Go marshals a []byte in JSON: standard base64."""
    return base64.b64encode(value).decode()


def user_handle(user_id: uuid.UUID) -> bytes:
    """GoTrue's WebAuthn user handle: the user id's text."""
    return str(user_id).encode()


def registration_options(rp: RelyingParty, *, user_handle: bytes, user_name: str, display_name: str,
                         exclude: list[bytes], discoverable: bool) -> tuple[dict[str, Any], Session]:
    """navigator.credentials.create() options (JSON) and the ceremony's state.

    Passkeys ask for a discoverable (resident) key, as GoTrue's passkey config does; MFA
    factors take go-webauthn's defaults (no preference).
    """
    selection = AuthenticatorSelectionCriteria(
        resident_key=ResidentKeyRequirement.REQUIRED, require_resident_key=True,
        user_verification=UserVerificationRequirement.PREFERRED,
    ) if discoverable else AuthenticatorSelectionCriteria(user_verification=UserVerificationRequirement.PREFERRED)
    options = generate_registration_options(
        rp_id=rp.id, rp_name=rp.name, user_id=user_handle, user_name=user_name, user_display_name=display_name,
        timeout=TIMEOUT_MS, attestation=AttestationConveyancePreference.NONE, authenticator_selection=selection,
        exclude_credentials=[PublicKeyCredentialDescriptor(id=c) for c in exclude],
    )
    body = options_to_json_dict(options)
    if not exclude:
        body.pop("excludeCredentials", None)  # go-webauthn leaves an empty list out
    return body, Session(options.challenge, user_handle, (), UserVerificationRequirement.PREFERRED.value)


def authentication_options(rp: RelyingParty, *, user_handle: bytes | None,
                           allowed: list[bytes]) -> tuple[dict[str, Any], Session]:
    """navigator.credentials.get() options (JSON) and the ceremony's state.

    With no user (passkey sign-in) the list of allowed credentials is empty: the
    authenticator offers its discoverable credentials and says whose it is (userHandle).
    """
    options = generate_authentication_options(
        rp_id=rp.id, timeout=TIMEOUT_MS, user_verification=UserVerificationRequirement.PREFERRED,
        allow_credentials=[PublicKeyCredentialDescriptor(id=c) for c in allowed],
    )
    body = options_to_json_dict(options)
    if not allowed:
        body.pop("allowCredentials", None)
    return body, Session(options.challenge, user_handle, tuple(allowed), UserVerificationRequirement.PREFERRED.value)


@dataclass(frozen=True)
class NewCredential:
    """A verified registration: what is stored of the credential."""

    credential_id: bytes
    public_key: bytes
    sign_count: int
    aaguid: str
    attestation_type: str
    transports: list[str]
    backup_eligible: bool
    backed_up: bool
    user_verified: bool


def verify_registration(rp: RelyingParty, session: Session, credential: Any) -> NewCredential:
    """Check a navigator.credentials.create() answer (JSON) against the ceremony's state."""
    if not isinstance(credential, dict):
        raise CeremonyFailed("credential is not a JSON object", malformed=True)
    try:
        parsed = parse_registration_credential_json(credential)
    except Exception as exc:  # missing fields, bad base64: the client's fault
        raise CeremonyFailed(str(exc) or type(exc).__name__, malformed=True) from None
    try:
        verified = verify_registration_response(
            credential=parsed, expected_challenge=session.challenge, expected_rp_id=rp.id,
            expected_origin=list(rp.origins), require_user_verification=False)
    except Exception as exc:  # any malformed inner part (CBOR, COSE key) is the client's fault too
        raise CeremonyFailed(str(exc) or type(exc).__name__) from None
    if len(verified.credential_id) > MAX_CREDENTIAL_ID:
        raise CeremonyFailed("credential id too long")
    response = credential.get("response")
    transports = response.get("transports") if isinstance(response, dict) else None
    return NewCredential(
        credential_id=verified.credential_id, public_key=verified.credential_public_key,
        sign_count=verified.sign_count, aaguid=verified.aaguid, attestation_type=AttestationFormat(verified.fmt).value,
        transports=[t for t in transports if isinstance(t, str) and len(t) <= 32][:8] if isinstance(transports, list) else [],
        backup_eligible=CredentialDeviceType(verified.credential_device_type) is CredentialDeviceType.MULTI_DEVICE,
        backed_up=verified.credential_backed_up, user_verified=verified.user_verified,
    )


@dataclass(frozen=True)
class Assertion:
    """A navigator.credentials.get() answer, read: who it says it is from, before its
    signature is checked (verify_authentication)."""

    credential_id: bytes
    user_handle: bytes | None
    parsed: AuthenticationCredential


def read_assertion(credential: Any) -> Assertion:
    """The credential id and user handle of a navigator.credentials.get() answer (JSON)."""
    if not isinstance(credential, dict):
        raise CeremonyFailed("credential is not a JSON object", malformed=True)
    try:
        parsed = parse_authentication_credential_json(credential)
    except Exception as exc:  # missing fields, bad base64: the client's fault
        raise CeremonyFailed(str(exc) or type(exc).__name__, malformed=True) from None
    credential_id, user_handle = parsed.raw_id, parsed.response.user_handle
    if not credential_id or len(credential_id) > MAX_CREDENTIAL_ID or (user_handle and len(user_handle) > MAX_USER_HANDLE):
        raise CeremonyFailed("rawId or userHandle out of bounds", malformed=True)
    return Assertion(credential_id, user_handle or None, parsed)


def verify_authentication(rp: RelyingParty, session: Session, assertion: Assertion, *, public_key: bytes,
                          sign_count: int) -> int:
    """Check an assertion (read_assertion) against the ceremony's state and the stored
    credential; the authenticator's new sign count.

    A counter that does not move forward (while either side counts) means a cloned
    authenticator or a replayed answer, and fails.
    """
    if session.allowed and assertion.credential_id not in session.allowed:
        raise CeremonyFailed("credential not among the allowed credentials")
    try:
        verified = verify_authentication_response(
            credential=assertion.parsed, expected_challenge=session.challenge, expected_rp_id=rp.id,
            expected_origin=list(rp.origins), credential_public_key=public_key,
            credential_current_sign_count=sign_count, require_user_verification=False)
    except Exception as exc:  # any malformed part (base64, CBOR, signature encoding) is the client's fault
        raise CeremonyFailed(str(exc) or type(exc).__name__) from None
    return verified.new_sign_count
