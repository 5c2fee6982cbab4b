"""The in-memory rate limiter: GoTrue's buckets from the settings, windows and token buckets per
key, bounded in number whatever the keys sent."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import server.auth

from server.auth.errors import AuthError
from server.auth.ratelimit import ACCOUNT_BUCKET, LIMITS, SIGN_IN_SIGN_UPS, RateLimiter, limits_from
from server.config import Settings


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_account_attempts_are_refused_past_ten_then_allowed_when_the_window_ends() -> None:
    clock = Clock()
    limiter = RateLimiter(True, clock=clock)
    for _ in range(10):
        limiter.account_attempt("victim@example.com")
    with pytest.raises(AuthError) as refused:
        limiter.account_attempt("victim@example.com")
    assert (refused.value.status, refused.value.code) == (429, "over_request_rate_limit")
    limiter.account_attempt("other@example.com")  # another account is not affected
    clock.now += 300
    limiter.account_attempt("victim@example.com")


def test_a_right_password_clears_the_count() -> None:
    limiter = RateLimiter(True, clock=Clock())
    for _ in range(9):
        limiter.account_attempt("owner@example.com")
    limiter.account_succeeded("owner@example.com")
    for _ in range(10):
        limiter.account_attempt("owner@example.com")


def test_a_spray_of_addresses_keeps_a_bounded_number_of_windows() -> None:
    clock = Clock()
    limiter = RateLimiter(True, max_keys=1000, clock=clock)
    for i in range(20_000):
        limiter.account_attempt(f"spray-{i}@example.com")
        limiter.hit("signup", f"2001:db8::{i:x}")
    assert len(limiter.bucket(ACCOUNT_BUCKET)) == 1000
    assert len(limiter.bucket("signup")) == 1000
    # the newest windows are the ones kept, still counting
    for _ in range(9):
        limiter.account_attempt("spray-19999@example.com")
    with pytest.raises(AuthError):
        limiter.account_attempt("spray-19999@example.com")


def test_expired_windows_are_dropped_as_new_ones_arrive() -> None:
    clock = Clock()
    limiter = RateLimiter(True, clock=clock)
    for i in range(500):
        limiter.account_attempt(f"old-{i}@example.com")
    clock.now += 301
    limiter.account_attempt("new@example.com")
    assert len(limiter.bucket(ACCOUNT_BUCKET)) == 1


def test_disabled_limits_count_nothing() -> None:
    limiter = RateLimiter(False)
    for _ in range(50):
        limiter.account_attempt("x@example.com")
    assert len(limiter.bucket(ACCOUNT_BUCKET)) == 0


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


def test_sign_ups_and_the_other_endpoints_count_apart() -> None:
    """GoTrue's limiters are one per endpoint: 21 sign-ups leave the sign-ins (token_refresh),
    the recoveries and the OTPs untouched."""
    limiter = RateLimiter(True, clock=Clock())
    for _ in range(21):
        assert limiter.hit("signup", "192.0.2.1")
    for _ in range(10):
        assert limiter.hit("token_refresh", "192.0.2.1")
    for _ in range(30):
        assert limiter.hit("recover", "192.0.2.1")
    assert not limiter.hit("recover", "192.0.2.1")
    assert limiter.hit("otp", "192.0.2.1") and limiter.hit("signup", "192.0.2.1")


def test_a_token_bucket_refills_at_its_rate() -> None:
    clock = Clock()
    limiter = RateLimiter(True, limits_from(Settings(rate_limit_sign_in_sign_ups=3)), clock=clock)
    assert all(limiter.hit("signup", "ip") for _ in range(3))
    assert not limiter.hit("signup", "ip")  # refused requests take no token
    clock.now += 99  # one request per 100 s
    assert not limiter.hit("signup", "ip")
    clock.now += 1
    assert limiter.hit("signup", "ip") and not limiter.hit("signup", "ip")
    clock.now += 10_000  # full again, never more than the burst
    assert all(limiter.hit("signup", "ip") for _ in range(3)) and not limiter.hit("signup", "ip")


def test_the_token_limiter_holds_gotrue_burst_of_30() -> None:
    clock = Clock()
    limiter = RateLimiter(True, clock=clock)  # token_refresh: 150 per 5 minutes, burst 30
    assert all(limiter.hit("token_refresh", "ip") for _ in range(30))
    assert not limiter.hit("token_refresh", "ip")
    clock.now += 2  # 0.5 per second
    assert limiter.hit("token_refresh", "ip") and not limiter.hit("token_refresh", "ip")


def test_anonymous_sign_ins_refill_per_hour() -> None:
    clock = Clock()
    limiter = RateLimiter(True, limits_from(Settings(rate_limit_anonymous_users=2)), clock=clock)
    assert limiter.hit("anonymous_users", "ip") and limiter.hit("anonymous_users", "ip")
    assert not limiter.hit("anonymous_users", "ip")
    clock.now += 1800
    assert limiter.hit("anonymous_users", "ip") and not limiter.hit("anonymous_users", "ip")


def test_mails_and_sms_are_counted_for_the_whole_server_per_hour() -> None:
    clock = Clock()
    limiter = RateLimiter(True, limits_from(Settings(rate_limit_email_sent=2, rate_limit_sms_sent=1)), clock=clock)
    limiter.check_email()
    limiter.check_email()
    with pytest.raises(AuthError) as mail_refused:
        limiter.check_email()
    assert (mail_refused.value.status, mail_refused.value.code) == (429, "over_email_send_rate_limit")
    limiter.check_sms()
    with pytest.raises(AuthError) as sms_refused:
        limiter.check_sms()
    assert (sms_refused.value.status, sms_refused.value.code, sms_refused.value.message) == (
        429, "over_sms_send_rate_limit", "SMS rate limit exceeded")
    clock.now += 3600
    limiter.check_email()
    limiter.check_sms()


def test_a_zero_or_negative_limit_refuses_everything() -> None:
    limiter = RateLimiter(True, limits_from(Settings(rate_limit_sign_in_sign_ups=0, rate_limit_sms_sent=0,
                                                     rate_limit_token_refresh=-5, rate_limit_email_sent=-1)))
    assert not limiter.hit("signup", "ip") and not limiter.hit("token_refresh", "ip")
    with pytest.raises(AuthError):
        limiter.check_email()
    with pytest.raises(AuthError):
        limiter.check_sms()


def test_token_buckets_are_bounded_and_drop_full_ones() -> None:
    clock = Clock()
    limiter = RateLimiter(True, max_keys=1000, clock=clock)
    for i in range(5000):
        limiter.hit("token_refresh", f"2001:db8::{i:x}")
    assert len(limiter.bucket("token_refresh")) == 1000
    clock.now += 60  # every bucket full again: the next request finds them gone
    limiter.hit("token_refresh", "198.51.100.1")
    assert len(limiter.bucket("token_refresh")) == 1


def test_every_bucket_the_endpoints_name_has_a_limit() -> None:
    # A name without a limit would be a KeyError (a 500) only when rate limits are on, which
    # the API tests turn off: read the names from the source instead.
    named = re.compile(r"""limiter\.check\(\s*"(\w+)"|\bbucket\s*=\s*"(\w+)"|rate_bucket\s*=\s*"(\w+)\"""")
    names = {group for path in Path(server.auth.__file__).parent.glob("*.py")
             for match in named.finditer(path.read_text()) for group in match.groups() if group}
    assert {"signup", "token_refresh", "passkey", "mfa_verify"} <= names
    assert names <= set(LIMITS), names - set(LIMITS)
