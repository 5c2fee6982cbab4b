"""GoTrue's rate limits, from the SUPALITE_AUTH_RATE_LIMIT_* settings (Supabase's
`[auth.rate_limit]` names), and a bound on failed password sign-ins per account.

GoTrue (internal/api/apilimiter) keeps one limiter per endpoint, each counted per client IP:
`sign_in_sign_ups` (GOTRUE_RATE_LIMIT_OTP) sets six separate ones, for /signup, /otp,
/magiclink, /recover, /resend and PUT /user; `token_refresh` sets the one of /token (every
grant: password sign-ins count there, not with sign-ups); `token_verifications` the one of
/verify; `anonymous_users` the anonymous sign-ins. These are token buckets (tollbooth): the
per-5-minute ones hold at most 30 requests (GoTrue's fixed burst) and refill at N per 5
minutes; here a setting under 30 also caps the bucket, so that a setting means what its name
says (GoTrue would still let 30 through at once). Anonymous sign-ins hold N, refilled at N
per hour. Mails and SMS are counted for the whole server in fixed hourly windows (GoTrue's
IntervalLimiter): `email_sent`, `sms_sent`; and each user gets one mail of a kind a minute
(GoTrue's SMTP.MaxFrequency, read from the user's `*_sent_at` column: check_mail_frequency).

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
from typing import Any

from psycopg import AsyncConnection, sql
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import too_many_requests
from server.auth.http import client_ip
from server.config import Settings


@dataclass(frozen=True)
class Limit:
    """`count` per `per_seconds`: fixed windows, or with `burst` a token bucket holding at most
    `burst` requests and refilled at count / per_seconds."""

    count: int
    per_seconds: int
    burst: int | None = None


ACCOUNT_BUCKET = "password_failures"
# GoTrue's separate limiters that `sign_in_sign_ups` (GOTRUE_RATE_LIMIT_OTP) sets, by endpoint.
SIGN_IN_SIGN_UPS = ("signup", "otp", "magiclink", "recover", "resend", "user")
GOTRUE_BURST = 30  # apilimiter's SetBurst(30) of the per-5-minute limiters
FIVE_MINUTES, HOUR = 300, 3600
# GoTrue's SMTP.MaxFrequency and Sms.MaxFrequency defaults: one mail, or SMS, of each kind a
# minute per user.
SEND_INTERVAL_SECONDS = 60


def per_five_minutes(count: int) -> Limit:
    return Limit(max(count, 0), FIVE_MINUTES, burst=min(max(count, 0), GOTRUE_BURST))


def limits_from(settings: Settings) -> dict[str, Limit]:
    """Every bucket's limit, from the settings."""
    sign_ins = per_five_minutes(settings.rate_limit_sign_in_sign_ups)
    anonymous = max(settings.rate_limit_anonymous_users, 0)  # 0 (or less): none allowed
    return {
        **{name: sign_ins for name in SIGN_IN_SIGN_UPS},
        "token_refresh": per_five_minutes(settings.rate_limit_token_refresh),
        "token_verifications": per_five_minutes(settings.rate_limit_token_verifications),
        "anonymous_users": Limit(anonymous, HOUR, burst=anonymous),
        "email_sent": Limit(max(settings.rate_limit_email_sent, 0), HOUR),
        "sms_sent": Limit(max(settings.rate_limit_sms_sent, 0), HOUR),
        # GoTrue's RateLimitPasskey (30, as the per-5-minute limiters) for passkey sign-in options.
        "passkey": per_five_minutes(settings.rate_limit_sign_in_sign_ups),
        # GoTrue's MFA.RateLimitChallengeAndVerify: challenges, and verifies apart, 15 a minute
        # per address in token buckets of 30 (its limiterOpts.FactorChallenge and FactorVerify).
        "mfa_challenge": Limit(15, 60, burst=30),
        "mfa_verify": Limit(15, 60, burst=30),
        ACCOUNT_BUCKET: Limit(10, FIVE_MINUTES),
    }


# The defaults of config.toml's [auth.rate_limit].
LIMITS = limits_from(Settings())
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

    def take(self, key: str, now: float) -> bool:
        """Count one request for `key`; False (and not counted) past the limit."""
        if self.count(key, now) >= self.limit.count:
            return False
        self.add(key, now)
        return True

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


class TokenBuckets:
    """One bucket's token buckets (x/time/rate, as tollbooth uses it), key -> (tokens, at),
    in order of last use, at most `max_keys`: a key unused long enough to be full again is the
    same as no key, so those are dropped from the front; under a flood the least recently used
    goes (it starts full again)."""

    def __init__(self, limit: Limit, max_keys: int = MAX_KEYS) -> None:
        self.limit = limit
        self.max_keys = max_keys
        self.capacity = float(limit.burst or 0)
        self.rate = limit.count / limit.per_seconds  # tokens per second
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, state: tuple[float, float] | None, now: float) -> float:
        if state is None:
            return self.capacity
        tokens, at = state
        return min(self.capacity, tokens + max(0.0, now - at) * self.rate)

    def take(self, key: str, now: float) -> bool:
        tokens = self._tokens(self._buckets.pop(key, None), now)
        allowed = tokens >= 1
        self._buckets[key] = (tokens - 1 if allowed else tokens, now)
        while self._buckets:
            first_key, first = next(iter(self._buckets.items()))
            if len(self._buckets) <= self.max_keys and self._tokens(first, now) < self.capacity:
                break
            del self._buckets[first_key]
        return allowed


Counter = Windows | TokenBuckets


@dataclass
class RateLimiter:
    enabled: bool
    limits: dict[str, Limit] = field(default_factory=lambda: dict(LIMITS))
    max_keys: int = MAX_KEYS
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[str, Counter] = field(default_factory=dict)

    @classmethod
    def from_settings(cls, settings: Settings) -> RateLimiter:
        return cls(settings.rate_limits_enabled, limits_from(settings))

    def bucket(self, name: str) -> Counter:
        counter = self._buckets.get(name)
        if counter is None:
            limit = self.limits[name]
            counter = TokenBuckets(limit, self.max_keys) if limit.burst is not None else Windows(limit, self.max_keys)
            self._buckets[name] = counter
        return counter

    def hit(self, bucket: str, key: str) -> bool:
        """Count one request; False when the bucket's limit is exceeded for `key`."""
        if not self.enabled:
            return True
        return self.bucket(bucket).take(key, self.clock())

    def check(self, bucket: str, request: Request) -> None:
        """One request of the client's IP in `bucket` (a name of SIGN_IN_SIGN_UPS,
        token_refresh, token_verifications, anonymous_users, passkey, mfa_challenge or
        mfa_verify); 429 past its limit."""
        if not self.hit(bucket, client_ip(request)):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    def check_email(self) -> None:
        if not self.hit("email_sent", "*"):
            raise too_many_requests(codes.OVER_EMAIL_SEND_RATE_LIMIT, "email rate limit exceeded")

    async def check_mail_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str) -> None:
        """A mail about to be sent to a user: GoTrue's per-user frequency (one a minute for each
        kind, from the `sent_at_column` of auth.users), then the whole server's email_sent count."""
        await self._check_frequency(conn, user_id, sent_at_column, codes.OVER_EMAIL_SEND_RATE_LIMIT)
        self.check_email()

    async def check_sms_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str) -> None:
        """An SMS about to be sent to a user: the same per-user frequency (the server's sms_sent
        count is taken when it is sent, test numbers excepted)."""
        await self._check_frequency(conn, user_id, sent_at_column, codes.OVER_SMS_SEND_RATE_LIMIT)

    async def _check_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str, code: str) -> None:
        """429 while the last send of this kind is under SEND_INTERVAL_SECONDS old, with the
        seconds left truncated as GoTrue's generateFrequencyLimitErrorMessage does."""
        if not self.enabled:
            return
        cur = await conn.execute(
            sql.SQL("select floor(extract(epoch from {sent} + make_interval(secs => %s) - now())) from auth.users"
                    " where id = %s and {sent} + make_interval(secs => %s) >= now()").format(
                sent=sql.Identifier(sent_at_column)),
            [SEND_INTERVAL_SECONDS, user_id, SEND_INTERVAL_SECONDS])
        row = await cur.fetchone()
        if row is not None:
            raise too_many_requests(code, f"For security purposes, you can only request this after {int(row[0])} seconds.")

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
            windows = self.bucket(ACCOUNT_BUCKET)
            assert isinstance(windows, Windows)
            windows.forget(email)
