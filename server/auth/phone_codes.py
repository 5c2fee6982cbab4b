"""SMS codes: sent with their hash kept on the user, checked, and spent when a number is confirmed or changed.

A code's hash (sha224 of number + code, as GoTrue's GenerateTokenHash) sits in the user's
confirmation_token (sign-up and sign-in), phone_change_token or reauthentication_token column,
with its send time; it is valid for GOTRUE_SMS_OTP_EXP seconds and once. A number of
GOTRUE_SMS_TEST_OTP also verifies with its fixed code, at any time (GoTrue's GetTestOTP).
"""

from __future__ import annotations

import hmac
import uuid

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import mail, sms
from server.auth.identities import claims_map
from server.auth.models import identities as identity_rows
from server.auth.models import one_time_tokens, users
from server.auth.models.users import UserRow
from server.auth.service import AuthService
from server.core.config import Settings

PROVIDER = "phone"

# What each kind of code is kept in: (token column, sent-at column); the column's name is the
# one_time_tokens type too.
OTP_COLUMNS = {
    "confirmation": ("confirmation_token", "confirmation_sent_at"),
    "phone_change": ("phone_change_token", "phone_change_sent_at"),
    "reauthentication": ("reauthentication_token", "reauthentication_sent_at"),
}


async def send_code(svc: AuthService, conn: AsyncConnection, request: Request | None, user: UserRow,
                            phone: str, otp_type: str) -> str:
    """GoTrue's sendPhoneConfirmation: a code for `otp_type` (confirmation, phone_change or
    reauthentication) to `phone`, its hash kept on the user. Returns the message id GoTrue
    answers ("test-otp" for a test number, else none)."""
    token_column, sent_column = OTP_COLUMNS[otp_type]
    await svc.limiter.check_sms_frequency(conn, user["id"], sent_column)
    code = await sms.send_otp(svc, conn, phone=phone, kind=otp_type, user=user, request=request)
    hashed = mail.token_hash(phone, code)
    await users.set_code(conn, user["id"], token_column, sent_column, hashed)
    if otp_type == "phone_change":
        await users.set_phone_change(conn, user["id"], phone)
    await one_time_tokens.save(conn, user["id"], token_column, hashed, phone)
    return "test-otp" if sms.test_otp(svc.ctx.settings, phone) is not None else ""


async def confirm_phone(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """GoTrue's ConfirmPhone: confirmed now, the code spent (and every other pending code)."""
    await users.confirm_phone(conn, user_id)
    await one_time_tokens.delete_of_user(conn, user_id)


async def code_matches(settings: Settings, conn: AsyncConnection, user: UserRow, kind: str, phone: str,
                        token: str, hashed: str) -> bool:
    """A test number's fixed code, or the kept hash while it is fresh (compared in constant time)."""
    fixed = sms.test_otp(settings, phone)
    if fixed is not None and hmac.compare_digest(token.encode(), fixed.encode()):
        return True
    token_column, sent_column = OTP_COLUMNS["confirmation" if kind == "sms" else "phone_change"]
    row = await users.fresh_code(conn, user["id"], token_column, sent_column, settings.sms_otp_exp)
    if row is None:
        return False
    stored, fresh = row
    # Compared whatever the freshness, so the answer's timing says nothing about the code.
    same = bool(stored) and hmac.compare_digest(stored.encode(), hashed.encode())
    return same and bool(fresh)


async def apply_phone_change(conn: AsyncConnection, user: UserRow, phone: str) -> None:
    """GoTrue's phone_change verification: the phone identity (created, or its number updated),
    then ConfirmPhoneChange (the new number, confirmed; pending codes spent)."""
    user_id = user["id"]
    if not await identity_rows.set_phone(conn, user_id, phone):
        await identity_rows.create(conn, user_id, PROVIDER, claims_map({"sub": str(user_id), "phone": phone, "phone_verified": True}))
    await users.apply_phone_change(conn, user_id, phone)
    await one_time_tokens.delete_of_user(conn, user_id)


async def became_permanent(conn: AsyncConnection, user_id: uuid.UUID) -> None:
    """A verified number makes an anonymous user permanent; app_metadata follows the user's
    identities (GoTrue's UpdateAppMetaDataProviders)."""
    await users.make_permanent(conn, user_id)
    await users.update_providers(conn, user_id)
