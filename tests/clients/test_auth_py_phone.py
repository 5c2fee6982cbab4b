"""supabase-py (supabase_auth), unmodified, signs in by phone against a server with the phone
provider on (codes read from the dev inbox, one fixed test number)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import httpx
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from tests import harness
from tests.auth.conftest import auth_server

TEST_PHONE, TEST_OTP = "15555550188", "737373"


@pytest.fixture(scope="module")
def phone_server(database_url: str) -> Iterator[harness.LiveServer]:
    with auth_server(database_url, {
        "GOTRUE_EXTERNAL_PHONE_ENABLED": "true", "GOTRUE_SMS_TEST_OTP": f"{TEST_PHONE}:{TEST_OTP}",
    }) as server:
        yield server


def phone() -> str:
    return "+1555" + "".join(random.choice("0123456789") for _ in range(7))


def latest_sms(server: harness.LiveServer, number: str) -> str:
    messages = httpx.get(f"{server.url}/inbox/api/v1/messages", params={"phone": number}).json()["messages"]
    return str(messages[0]["OTP"])


def test_phone_sign_up_verify_and_password(phone_server: harness.LiveServer) -> None:
    supabase = create_client(phone_server.url, phone_server.anon_key)
    number = phone()
    signed_up = supabase.auth.sign_up({"phone": number, "password": "py-password"})
    assert signed_up.session is None and signed_up.user is not None and signed_up.user.phone == number[1:]
    with pytest.raises(AuthApiError) as early:
        supabase.auth.sign_in_with_password({"phone": number, "password": "py-password"})
    assert early.value.code == "phone_not_confirmed"
    supabase.auth.resend({"type": "sms", "phone": number})
    verified = supabase.auth.verify_otp({"phone": number, "token": latest_sms(phone_server, number), "type": "sms"})
    assert verified.session is not None and verified.user is not None and verified.user.phone_confirmed_at
    supabase.auth.sign_out()
    session = supabase.auth.sign_in_with_password({"phone": number, "password": "py-password"}).session
    assert session is not None and session.user.phone == number[1:]


def test_phone_otp_test_number_and_phone_change(phone_server: harness.LiveServer) -> None:
    supabase = create_client(phone_server.url, phone_server.anon_key)
    sent = supabase.auth.sign_in_with_otp({"phone": "+" + TEST_PHONE})
    assert sent.user is None
    verified = supabase.auth.verify_otp({"phone": "+" + TEST_PHONE, "token": TEST_OTP, "type": "sms"})
    assert verified.user is not None and verified.user.phone == TEST_PHONE
    with pytest.raises(AuthApiError) as wrong:
        supabase.auth.verify_otp({"phone": "+" + TEST_PHONE, "token": "000000", "type": "sms"})
    assert wrong.value.code == "otp_expired"
    number = phone()
    updated = supabase.auth.update_user({"phone": number})
    assert updated.user.new_phone == number[1:]
    changed = supabase.auth.verify_otp({"phone": number, "token": latest_sms(phone_server, number), "type": "phone_change"})
    assert changed.user is not None and changed.user.phone == number[1:]
