"""supabase-py (supabase_auth), unmodified: auth.mfa and auth.admin.mfa with TOTP factors."""

from __future__ import annotations

import time
import uuid

import pyotp
import pytest
from supabase import create_client
from supabase_auth.errors import AuthApiError

from tests import harness


def test_mfa_flow(live_server: harness.LiveServer) -> None:
    supabase = create_client(live_server.url, live_server.anon_key)
    address = f"py-mfa-{uuid.uuid4().hex[:10]}@example.com"
    user = supabase.auth.sign_up({"email": address, "password": "py-password"}).user
    assert user is not None
    level = supabase.auth.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal1")

    enrolled = supabase.auth.mfa.enroll({"factor_type": "totp", "friendly_name": "py app"})
    assert enrolled.type == "totp" and enrolled.friendly_name == "py app"
    assert enrolled.totp is not None and enrolled.totp.qr_code.startswith("data:image/svg+xml;utf-8,<svg")
    totp = pyotp.TOTP(enrolled.totp.secret)

    challenge = supabase.auth.mfa.challenge({"factor_id": enrolled.id})
    with pytest.raises(AuthApiError) as wrong:
        supabase.auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id,
                                  "code": "000000" if totp.now() != "000000" else "111111"})
    assert wrong.value.code == "mfa_verification_failed"
    verified = supabase.auth.mfa.verify({"factor_id": enrolled.id, "challenge_id": challenge.id, "code": totp.now()})
    assert verified.access_token
    level = supabase.auth.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal2", "aal2")
    assert [m.method for m in level.current_authentication_methods] == ["totp", "password"]
    factors = supabase.auth.mfa.list_factors()
    assert [(f.id, f.status) for f in factors.totp] == [(enrolled.id, "verified")]

    # A second device: aal1 until it answers a challenge (challenge_and_verify).
    other = create_client(live_server.url, live_server.anon_key)
    other.auth.sign_in_with_password({"email": address, "password": "py-password"})
    level = other.auth.mfa.get_authenticator_assurance_level()
    assert (level.current_level, level.next_level) == ("aal1", "aal2")
    with pytest.raises(AuthApiError) as refused:
        other.auth.mfa.unenroll({"factor_id": enrolled.id})
    assert refused.value.code == "insufficient_aal"
    # A code serves once (RFC 6238 5.2): the next step's, which the server's skew accepts.
    other.auth.mfa.challenge_and_verify({"factor_id": enrolled.id, "code": totp.at(time.time() + 30)})
    assert other.auth.mfa.get_authenticator_assurance_level().current_level == "aal2"
    assert other.auth.mfa.unenroll({"factor_id": enrolled.id}).id == enrolled.id
    assert supabase.auth.mfa.list_factors().all == []


def test_admin_mfa(live_server: harness.LiveServer) -> None:
    supabase = create_client(live_server.url, live_server.anon_key)
    user = supabase.auth.sign_up({"email": f"py-mfa-{uuid.uuid4().hex[:10]}@example.com", "password": "py-password"}).user
    assert user is not None
    enrolled = supabase.auth.mfa.enroll({"factor_type": "totp", "friendly_name": "admin sees it"})
    admin = create_client(live_server.url, live_server.service_key).auth.admin
    listed = admin.mfa.list_factors({"user_id": user.id})  # supabase-py parses GoTrue's array as a list
    assert [(f.id, f.status, f.friendly_name) for f in listed] == [(enrolled.id, "unverified", "admin sees it")]
    assert admin.mfa.delete_factor({"user_id": user.id, "id": enrolled.id}).id == enrolled.id
    assert admin.mfa.list_factors({"user_id": user.id}) == []
    with pytest.raises(AuthApiError) as missing:
        admin.mfa.delete_factor({"user_id": user.id, "id": enrolled.id})
    assert missing.value.code == "mfa_factor_not_found"
