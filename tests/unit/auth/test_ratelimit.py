"""The rate limiter's buckets, from the settings (the counting itself, in PostgreSQL, is
tested in tests/auth/test_ratelimit_shared.py)."""

from __future__ import annotations

import re
from pathlib import Path

import server.auth
from server.auth.ratelimit import LIMITS, SIGN_IN_SIGN_UPS, limits_from
from server.core.config import Settings


def test_buckets_take_their_limits_from_the_settings() -> None:
    limits = limits_from(Settings(rate_limit_sign_in_sign_ups=5, rate_limit_token_refresh=150,
                                  rate_limit_token_verifications=7, rate_limit_anonymous_users=40,
                                  rate_limit_email_sent=3, rate_limit_sms_sent=4))
    assert {limits[name].count for name in SIGN_IN_SIGN_UPS} == {5}
    assert (limits["token_refresh"].count, limits["token_refresh"].burst) == (150, 30)  # GoTrue's burst
    assert (limits["token_verifications"].count, limits["token_verifications"].per_seconds) == (7, 300)
    assert (limits["anonymous_users"].count, limits["anonymous_users"].burst, limits["anonymous_users"].per_seconds) \
        == (40, 40, 3600)
    assert (limits["email_sent"].count, limits["sms_sent"].count, limits["sms_sent"].burst) == (3, 4, None)


def test_every_bucket_the_endpoints_name_has_a_limit() -> None:
    # A name without a limit would be a KeyError (a 500) only when rate limits are on, which
    # the API tests turn off: read the names from the source instead.
    named = re.compile(r"""limiter\.check\(\s*"(\w+)"|\bbucket\s*=\s*"(\w+)"|rate_bucket\s*=\s*"(\w+)\"""")
    names = {group for path in Path(server.auth.__file__).parent.glob("*.py")
             for match in named.finditer(path.read_text()) for group in match.groups() if group}
    assert {"signup", "token_refresh", "passkey", "mfa_verify"} <= names
    assert names <= set(LIMITS), names - set(LIMITS)
