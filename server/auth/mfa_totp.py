"""TOTP factors (RFC 6238), as GoTrue's enrollTOTPFactor / verifyTOTPFactor with pquerna/otp.

Enroll makes a 160-bit secret (base32, 32 characters) and answers it with its otpauth:// URI
and that URI as an SVG QR code (error correction H, as GoTrue; the raw SVG, which auth-js and
supabase-py turn into a `data:image/svg+xml;utf-8,` URI). Verify accepts the code of the
current 30-second step or of the step on either side (GoTrue's skew of 1), six digits,
SHA-1; the comparison is constant-time and checks every step.

Where GoTrue is weak, this is stricter (auth.mfa_totp_guards, platform_schema/0160):
- a code serves once (RFC 6238 section 5.2): the factor's last accepted step is kept, and a
  code of that step or an earlier one is refused as a wrong code is, in any session. The step
  is taken by one guarded UPDATE, so of two verifies racing with one code only one passes;
- wrong codes are bounded per factor, across challenges and addresses: an attacker holding
  the password opens a new challenge for each guess, so after MAX_WRONG_CODES wrong codes in
  LOCKOUT_SECONDS the factor refuses every code (429) until that window ends.
"""

from __future__ import annotations

import base64
import hmac
import secrets
import time
import uuid
from collections.abc import Callable
from typing import Any, ClassVar
from urllib.parse import quote, urlsplit

import pyotp
import segno

from server.auth import error_codes as codes
from server.auth.errors import bad_request, too_many_requests, unprocessable
from server.auth.http import Body
from server.auth.mail import site_url
from server.auth.mfa_factor import (
    MfaCall,
    check_new_factor,
    find_challenge,
    insert_challenge,
    insert_factor,
    mark_challenge_verified,
    wrong_answer,
)
from server.auth.models import mfa_totp_guards
from server.auth.models.mfa_factors import FactorRow
from server.auth.wrong_codes import MAX_WRONG_CODES
from server.core.config import Settings

PERIOD = 30
DIGITS = 6
SKEW = 1
SECRET_BYTES = 20  # pquerna/otp's default SecretSize
MAX_ISSUER = 255
QR_MODULE_SIZE = 3  # GoTrue's DefaultQRSize
QR_ERROR = "Error generating QR Code"
# The window of a factor's wrong codes: GoTrue's lockout of its recovery codes
# (GOTRUE_MFA_RECOVERY_CODES_LOCKOUT_DURATION, 15 minutes), and its message.
LOCKOUT_SECONDS = 15 * 60
LOCKED = "Too many failed verification attempts, try again later"


def new_secret() -> str:
    return base64.b32encode(secrets.token_bytes(SECRET_BYTES)).decode()


def otpauth_uri(secret: str, issuer: str, account: str) -> str:
    """pquerna/otp's key URL: the label escaped as a URL path, the query sorted by key."""
    label = quote(f"{issuer}:{account}", safe="@:+!$&'()*,;=")
    query = "&".join(f"{k}={quote(v, safe='')}" for k, v in (
        ("algorithm", "SHA1"), ("digits", str(DIGITS)), ("issuer", issuer), ("period", str(PERIOD)), ("secret", secret)))
    return f"otpauth://totp/{label}?{query}"


def qr_svg(text: str) -> str:
    """The QR code of `text` as a standalone SVG, modules of QR_MODULE_SIZE px, no colour in
    `#` form (the SVG travels in a data: URI, where `#` would end it)."""
    code = segno.make(text, error="h", micro=False, boost_error=False)
    matrix = code.matrix
    size = len(matrix) * QR_MODULE_SIZE
    path = "".join(f"M{x * QR_MODULE_SIZE} {y * QR_MODULE_SIZE}h{QR_MODULE_SIZE}v{QR_MODULE_SIZE}h-{QR_MODULE_SIZE}z"
                   for y, row in enumerate(matrix) for x, dark in enumerate(row) if dark)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}">'
            f'<rect width="{size}" height="{size}" fill="white"/><path fill="black" d="{path}"/></svg>')


def matching_step(secret: str, code: str, now: float | None = None) -> int | None:
    """pquerna's ValidateCustom: the trimmed code must be six characters, equal to the code
    of one step in [now - SKEW, now + SKEW]; the latest such step, or None. Every step is
    compared, in constant time."""
    code = code.strip()
    if len(code.encode()) != DIGITS:
        return None
    totp = pyotp.TOTP(secret, digits=DIGITS, interval=PERIOD)
    counter = totp.timecode(time.time() if now is None else now)
    matched = None
    for step in range(counter - SKEW, counter + SKEW + 1):
        if hmac.compare_digest(totp.generate_otp(step).encode(), code.encode()):
            matched = step
    return matched


async def _locked(call: MfaCall, factor: FactorRow) -> bool:
    """The factor had MAX_WRONG_CODES wrong codes in its current window."""
    return await mfa_totp_guards.locked(call.conn, factor["id"], MAX_WRONG_CODES)


async def _count_wrong(call: MfaCall, factor: FactorRow) -> None:
    """One more wrong code in the factor's window (a new window starts after the last ended)."""
    await mfa_totp_guards.count_failure(call.conn, factor["id"], LOCKOUT_SECONDS)


async def _take_step(call: MfaCall, factor: FactorRow, step: int) -> bool:
    """Record `step` as the factor's last accepted one, only if it is later than the last:
    False for a code already used (or one of an earlier step). The wrong codes are forgotten,
    as GoTrue's recovery codes forget theirs on a right one."""
    return await mfa_totp_guards.take_step(call.conn, factor["id"], step)


class TotpKind:
    name: ClassVar[str] = "totp"
    label: ClassVar[str] = "TOTP"
    amr_method: ClassVar[str] = "totp"
    verify_disabled_code: ClassVar[str] = codes.MFA_TOTP_VERIFY_NOT_ENABLED

    def enroll_enabled(self, settings: Settings) -> bool:
        return settings.mfa_totp_enroll_enabled

    def verify_enabled(self, settings: Settings) -> bool:
        return settings.mfa_totp_verify_enabled

    async def enroll(self, call: MfaCall, body: Body) -> dict[str, Any]:
        friendly_name = body.text("friendly_name")
        issuer = body.text("issuer") or (urlsplit(site_url(call.svc.ctx)).netloc)
        if len(issuer) > MAX_ISSUER:
            raise bad_request(codes.VALIDATION_FAILED, f"issuer must be at most {MAX_ISSUER} characters")
        await check_new_factor(call, friendly_name)
        account = call.user["email"] or ""
        if not issuer or not account:  # pquerna's Generate refuses an empty issuer or account name:
            # GoTrue's 500; a user without an e-mail (phone only) is an expected case, so 422.
            raise unprocessable(codes.VALIDATION_FAILED, QR_ERROR)
        secret = new_secret()
        uri = otpauth_uri(secret, issuer, account)
        try:
            svg = qr_svg(uri)
        except segno.DataOverflowError:  # a long non-ASCII issuer: its escaped URI outgrows a QR code
            raise bad_request(codes.VALIDATION_FAILED, "issuer is too long for a QR code") from None
        factor = await insert_factor(call, factor_type=self.name, friendly_name=friendly_name, secret=secret)
        return {"id": str(factor["id"]), "type": self.name, "friendly_name": factor["friendly_name"] or "",
                "totp": {"qr_code": svg, "secret": secret, "uri": uri}}

    async def challenge(self, call: MfaCall, factor: FactorRow, body: Callable[[], Body]) -> dict[str, Any]:
        return await insert_challenge(call, factor)  # GoTrue reads no body for a TOTP challenge

    async def verify(self, call: MfaCall, factor: FactorRow, challenge_id: uuid.UUID | None, body: Body) -> None:
        challenge = await find_challenge(call, factor, challenge_id)
        # Refused before the code is read: the answer says nothing about it.
        if await _locked(call, factor):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, LOCKED)
        step = matching_step(factor["secret"] or "", body.text("code"))
        # The factor's row is locked (owned_factor): verifies of one factor take turns here.
        if step is None or not await _take_step(call, factor, step):
            await _count_wrong(call, factor)
            await wrong_answer(call, challenge, unprocessable(codes.MFA_VERIFICATION_FAILED, "Invalid TOTP code entered"))
        await mark_challenge_verified(call, challenge)
