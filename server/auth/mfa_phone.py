"""Phone (SMS) factors, as GoTrue's enrollPhoneFactor / challengePhoneFactor /
verifyPhoneFactor.

A challenge sends a new code through server.auth.sms (a test number of GOTRUE_SMS_TEST_OTP
gets its fixed code and no SMS) and keeps it in the challenge's otp_code, as GoTrue does
without database encryption; a verify compares it in constant time, and a challenge dies at
its MAX_WRONG_CODES-th wrong code (server.auth.mfa_factor.wrong_answer). The code has
GOTRUE_MFA_PHONE_OTP_LENGTH digits, the SMS reads GOTRUE_MFA_PHONE_TEMPLATE, and a factor is
challenged at most once per GOTRUE_MFA_PHONE_MAX_FREQUENCY (a minute by default; GoTrue reads
0 as the default too). Numbers are validated and stored as the phone provider does
(server.auth.phone: E.164 digits without the '+').
"""

from __future__ import annotations

import hmac
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any, ClassVar

from server.auth import error_codes as codes
from server.auth import sms
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
from server.auth.models.mfa_factors import FactorRow
from server.auth.phone_numbers import check_channel, validate_phone
from server.auth.service import AuthService
from server.core.config import Settings

DEFAULT_MAX_FREQUENCY = 60.0  # seconds: GoTrue's MFA.Phone.MaxFrequency default, also for 0


def _sms_service(svc: AuthService) -> AuthService:
    """The phone provider's sending (server.auth.sms) with the MFA code's length and template
    in place of the provider's own (GoTrue's MFA.Phone.OtpLength and Template)."""
    settings = svc.ctx.settings.with_overrides(sms_otp_length=svc.ctx.settings.mfa_phone_otp_length,
                                               sms_template=svc.ctx.settings.mfa_phone_template)
    return AuthService(replace(svc.ctx, settings=settings), svc.limiter)


class PhoneKind:
    name: ClassVar[str] = "phone"
    label: ClassVar[str] = "Phone"
    amr_method: ClassVar[str] = "mfa/phone"
    verify_disabled_code: ClassVar[str] = codes.MFA_PHONE_VERIFY_NOT_ENABLED

    def enroll_enabled(self, settings: Settings) -> bool:
        return settings.mfa_phone_enroll_enabled

    def verify_enabled(self, settings: Settings) -> bool:
        return settings.mfa_phone_verify_enabled

    async def enroll(self, call: MfaCall, body: Body) -> dict[str, Any]:
        raw_phone, friendly_name = body.text("phone"), body.text("friendly_name")
        if not raw_phone:
            raise bad_request(codes.VALIDATION_FAILED, "Phone number required to enroll Phone factor")
        phone = validate_phone(raw_phone)
        same_number = [f for f in await mfa_factors.of_user(call.conn, call.user["id"])
                       if f["factor_type"] == self.name and f["phone"] == phone]
        if any(f["status"] == VERIFIED for f in same_number):
            raise unprocessable(codes.MFA_VERIFIED_FACTOR_EXISTS,
                                "A verified phone factor already exists, unenroll the existing factor to continue")
        # An unverified factor for the same number is replaced.
        await mfa_factors.delete_many(call.conn, [f["id"] for f in same_number])
        await check_new_factor(call, friendly_name)
        factor = await insert_factor(call, factor_type=self.name, friendly_name=friendly_name, phone=phone)
        # GoTrue answers the number as it was sent, not in its stored form.
        return {"id": str(factor["id"]), "type": self.name, "friendly_name": factor["friendly_name"] or "",
                "phone": raw_phone}

    async def challenge(self, call: MfaCall, factor: FactorRow, body: Callable[[], Body]) -> dict[str, Any]:
        check_channel(call.settings, body().text("channel"))
        last = factor["last_challenged_at"]
        frequency = timedelta(seconds=call.settings.mfa_phone_max_frequency or DEFAULT_MAX_FREQUENCY)
        if last is not None:
            wait = last + frequency - datetime.now(UTC)
            if wait > timedelta(0):  # GoTrue's generateFrequencyLimitErrorMessage: whole seconds, truncated
                raise AuthError(429, codes.OVER_SMS_SEND_RATE_LIMIT,
                                f"For security purposes, you can only request this after {int(wait.total_seconds())} seconds.")
        code = await sms.send_otp(_sms_service(call.svc), call.conn, phone=factor["phone"] or "", kind="mfa",
                                  user=call.user, request=call.request)
        return await insert_challenge(call, factor, otp_code=code)

    async def verify(self, call: MfaCall, factor: FactorRow, challenge_id: uuid.UUID | None, body: Body) -> None:
        challenge = await find_challenge(call, factor, challenge_id)
        expected = (challenge["otp_code"] or "").encode()
        if not expected or not hmac.compare_digest(expected, body.text("code").encode()):
            await wrong_answer(call, challenge, unprocessable(codes.MFA_VERIFICATION_FAILED, "Invalid MFA Phone code entered"))
        await mark_challenge_verified(call, challenge)
