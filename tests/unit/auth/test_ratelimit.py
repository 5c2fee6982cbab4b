"""The in-memory rate limiter: windows per key, bounded in number whatever the keys sent."""

from __future__ import annotations

import pytest

from server.auth.errors import AuthError
from server.auth.ratelimit import ACCOUNT_BUCKET, RateLimiter


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
        limiter.hit("sign_in_sign_ups", f"2001:db8::{i:x}")
    assert len(limiter.bucket(ACCOUNT_BUCKET)) == 1000
    assert len(limiter.bucket("sign_in_sign_ups")) == 1000
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
