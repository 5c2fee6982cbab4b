"""GoTrue's rate limits (per client IP; mails per hour for the whole server), and a bound on
failed password sign-ins per account.

GoTrue counts password sign-ins per IP only, so an attacker rotating addresses guesses any
account's password at will; here sign-ins are also counted per e-mail address, whatever the
IP (a right password clears the count), and past 10 in 5 minutes the address is refused
(429) until its window ends. Every address is counted, registered or not, so the refusal
says nothing about which accounts exist.

Counts are kept per process (like GoTrue's in-memory limiter), at most MAX_KEYS per bucket, so
a client spraying millions of addresses (e-mail or IPv6) cannot grow memory. Off when
SUPALITE_RATE_LIMITS=false, which the test harness sets.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import too_many_requests
from server.auth.http import client_ip


@dataclass(frozen=True)
class Limit:
    count: int
    per_seconds: int


ACCOUNT_BUCKET = "password_failures"

# GoTrue / supabase config.toml defaults ([auth.rate_limit]), and the per-account bound.
LIMITS = {
    "sign_in_sign_ups": Limit(30, 300),
    "token_refresh": Limit(150, 300),
    "token_verifications": Limit(30, 300),
    "anonymous_users": Limit(30, 3600),
    "email_sent": Limit(30, 3600),
    "sms_sent": Limit(30, 3600),
    ACCOUNT_BUCKET: Limit(10, 300),
}
# Keys each bucket keeps at most: measured, 50,000 windows take 15 MB with 30-character
# addresses or IPv6 addresses, 27 MB with 255 (the longest an e-mail may be).
MAX_KEYS = 50_000


class Windows:
    """One bucket's fixed windows, key -> (count, end), in order of start, at most `max_keys`.

    All windows of a bucket last as long, so the first one is also the first to end: expired
    windows are dropped from the front as new ones arrive, and when all are live the oldest
    goes (its key may start afresh: a rare loss, only under a flood of distinct keys).
    """

    def __init__(self, limit: Limit, max_keys: int = MAX_KEYS) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self._windows: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._windows)

    def count(self, key: str, now: float) -> int:
        window = self._windows.get(key)
        return 0 if window is None or now >= window[1] else window[0]

    def add(self, key: str, now: float) -> None:
        window = self._windows.get(key)
        if window is not None and now < window[1]:
            self._windows[key] = (window[0] + 1, window[1])
            return
        self._windows.pop(key, None)
        while self._windows:
            first_key, (_, ends) = next(iter(self._windows.items()))
            if now < ends and len(self._windows) < self.max_keys:
                break
            del self._windows[first_key]
        self._windows[key] = (1, now + self.limit.per_seconds)

    def forget(self, key: str) -> None:
        self._windows.pop(key, None)


@dataclass
class RateLimiter:
    enabled: bool
    limits: dict[str, Limit] = field(default_factory=lambda: dict(LIMITS))
    max_keys: int = MAX_KEYS
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, Windows] = field(default_factory=dict)

    def bucket(self, name: str) -> Windows:
        windows = self._buckets.get(name)
        if windows is None:
            windows = self._buckets[name] = Windows(self.limits[name], self.max_keys)
        return windows

    def hit(self, bucket: str, key: str) -> bool:
        """Count one request; False when the bucket's limit is exceeded for `key`."""
        if not self.enabled:
            return True
        windows, now = self.bucket(bucket), self.clock()
        if windows.count(key, now) >= windows.limit.count:
            return False
        windows.add(key, now)
        return True

    def check(self, bucket: str, request: Request) -> None:
        if not self.hit(bucket, client_ip(request)):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    def check_email(self) -> None:
        if not self.hit("email_sent", "*"):
            raise too_many_requests(codes.OVER_EMAIL_SEND_RATE_LIMIT, "email rate limit exceeded")

    def check_sms(self) -> None:
        """Count one SMS about to be sent (the whole server's sms_sent bucket, per hour)."""
        if not self.hit("sms_sent", "*"):
            raise too_many_requests(codes.OVER_SMS_SEND_RATE_LIMIT, "SMS rate limit exceeded")

    # Password sign-ins per account (the normalized e-mail address).

    def account_attempt(self, email: str) -> None:
        """Count a password sign-in for `email`; refused past the bucket's limit."""
        if not self.hit(ACCOUNT_BUCKET, email):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    def account_succeeded(self, email: str) -> None:
        """A right password: the attempts before it were the owner's, not a guesser's."""
        if self.enabled:
            self.bucket(ACCOUNT_BUCKET).forget(email)
