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

Counts are kept in PostgreSQL (the unlogged auth.rate_limits, server/platform_schema/
0150_auth_rate_limits.sql), so that every worker of every replica counts together: a limit
means the same behind a proxy with several replicas as with one process. Each check is one
upsert through the owner's pool, which refills and takes (or counts) and says whether the
request is allowed, atomically. A row is dead once its bucket is full again or its window
ended: the next check of its key starts afresh, and each process deletes the dead rows every
SWEEP_SECONDS, so a client spraying millions of addresses (e-mail or IPv6) grows the table
only by what it sends within a window. The database unavailable, a check fails as every auth
query then does (503, which auth-js retries). Off when SUPALITE_RATE_LIMITS=false, which the
test harness sets.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any

from psycopg import AsyncConnection, sql
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import too_many_requests
from server.auth.http import client_ip
from server.config import Settings
from server.context import AppContext


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
# Keys are IPs and normalized e-mail addresses (at most 255 characters once validated) or
# phone numbers: anything longer is cut, so that a hostile key cannot fill the index.
MAX_KEY_LENGTH = 255
# How often each process deletes the rows that no longer count.
SWEEP_SECONDS = 30.0

Connect = Callable[[], AbstractAsyncContextManager[AsyncConnection[Any]]]

# The time of a check, in seconds: the database's clock (the same for every replica), or a
# test's clock.
_NOW = "coalesce(%(now)s::float8, extract(epoch from now()))"

# A token bucket (x/time/rate, as tollbooth uses it): `tokens` left at `at`, refilled at `rate`
# a second up to `capacity`. A new key starts full and takes one; a known one is refilled for
# the time elapsed, then takes one if it has one. The row dies when the bucket would be full
# again (it is then the same as no row).
_REFILLED = "least(%(capacity)s, r.tokens + greatest(0, excluded.at - r.at) * %(rate)s)"
_LEFT = f"({_REFILLED} - case when {_REFILLED} >= 1 then 1 else 0 end)"
_TAKE_TOKEN = f"""
insert into auth.rate_limits as r (bucket, key, tokens, at, expires_at, allowed)
select %(bucket)s, %(key)s, %(capacity)s - 1, t.now, t.now + 1 / %(rate)s, true from (select {_NOW} as now) t
on conflict (bucket, key) do update set
  allowed = {_REFILLED} >= 1,
  tokens = {_LEFT},
  expires_at = excluded.at + (%(capacity)s - {_LEFT}) / %(rate)s,
  at = excluded.at
returning allowed"""

# A fixed window: `tokens` requests counted in the window ending at `expires_at`. An ended
# window starts afresh with this request; a full one refuses without counting.
_COUNT_IN_WINDOW = f"""
insert into auth.rate_limits as r (bucket, key, tokens, at, expires_at, allowed)
select %(bucket)s, %(key)s, 1, t.now, t.now + %(per_seconds)s, true from (select {_NOW} as now) t
on conflict (bucket, key) do update set
  allowed = r.expires_at <= excluded.at or r.tokens < %(count)s,
  tokens = case when r.expires_at <= excluded.at then 1
                when r.tokens < %(count)s then r.tokens + 1 else r.tokens end,
  at = case when r.expires_at <= excluded.at then excluded.at else r.at end,
  expires_at = case when r.expires_at <= excluded.at then excluded.expires_at else r.expires_at end
returning allowed"""

_FORGET = "delete from auth.rate_limits where bucket = %(bucket)s and key = %(key)s"

# Rows no longer counting, a batch at a time; rows another process is updating are left to
# the next sweep (no waiting, no deadlock between processes sweeping at once).
_SWEEP = f"""
delete from auth.rate_limits where (bucket, key) in (
  select bucket, key from auth.rate_limits where expires_at <= {_NOW}
  limit 10000 for update skip locked)"""


def bounded_key(key: str) -> str:
    """`key` as stored: without NUL (PostgreSQL text cannot hold it), at most MAX_KEY_LENGTH."""
    return key.replace("\x00", "")[:MAX_KEY_LENGTH]


@dataclass
class RateLimiter:
    """GoTrue's limiters, counted in PostgreSQL through `connect` (the owner's pool). `clock`,
    for tests, replaces the database's clock (seconds, any origin)."""

    enabled: bool
    connect: Connect | None = None
    limits: dict[str, Limit] = field(default_factory=lambda: dict(LIMITS))
    clock: Callable[[], float] | None = None
    _next_sweep: float = field(default=0.0)

    @classmethod
    def from_context(cls, ctx: AppContext) -> RateLimiter:
        return cls(ctx.settings.rate_limits_enabled, ctx.admin_pool.connection, limits_from(ctx.settings))

    async def hit(self, bucket: str, key: str) -> bool:
        """Count one request; False when the bucket's limit is exceeded for `key`."""
        if not self.enabled:
            return True
        limit = self.limits[bucket]
        allowance = limit.count if limit.burst is None else limit.burst
        if allowance < 1:  # a limit of 0 (or less) refuses everything: nothing to count
            return False
        params: dict[str, Any] = {"bucket": bucket, "key": bounded_key(key), "now": self._now()}
        if limit.burst is None:
            statement = _COUNT_IN_WINDOW
            params.update(count=limit.count, per_seconds=limit.per_seconds)
        else:
            statement = _TAKE_TOKEN
            params.update(capacity=float(limit.burst), rate=limit.count / limit.per_seconds)
        async with self._connection() as conn:
            cur = await conn.execute(statement, params)
            row = await cur.fetchone()
            await self._sweep_if_due(conn)
        return bool(row and row[0])

    async def forget(self, bucket: str, key: str) -> None:
        if self.enabled:
            async with self._connection() as conn:
                await conn.execute(_FORGET, {"bucket": bucket, "key": bounded_key(key)})

    async def sweep(self) -> None:
        """Delete the rows that no longer count (a batch: the next sweep takes the rest)."""
        async with self._connection() as conn:
            await conn.execute(_SWEEP, {"now": self._now()})

    async def _sweep_if_due(self, conn: AsyncConnection[Any]) -> None:
        due = time.monotonic()
        if due >= self._next_sweep:
            self._next_sweep = due + SWEEP_SECONDS
            await conn.commit()  # the request's count is kept, whatever the sweep does
            await conn.execute(_SWEEP, {"now": self._now()})

    def _connection(self) -> AbstractAsyncContextManager[AsyncConnection[Any]]:
        if self.connect is None:
            raise RuntimeError("rate limits are on, without a database to count in")
        return self.connect()

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock()

    async def check(self, bucket: str, request: Request) -> None:
        """One request of the client's IP in `bucket` (a name of SIGN_IN_SIGN_UPS,
        token_refresh, token_verifications, anonymous_users, passkey, mfa_challenge or
        mfa_verify); 429 past its limit."""
        if not await self.hit(bucket, client_ip(request)):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    async def check_email(self) -> None:
        if not await self.hit("email_sent", "*"):
            raise too_many_requests(codes.OVER_EMAIL_SEND_RATE_LIMIT, "email rate limit exceeded")

    async def check_mail_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str) -> None:
        """A mail about to be sent to a user: GoTrue's per-user frequency (one a minute for each
        kind, from the `sent_at_column` of auth.users), then the whole server's email_sent count."""
        await self._check_frequency(conn, user_id, sent_at_column, codes.OVER_EMAIL_SEND_RATE_LIMIT)
        await self.check_email()

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

    async def check_sms(self) -> None:
        """Count one SMS about to be sent (the whole server's sms_sent bucket, per hour)."""
        if not await self.hit("sms_sent", "*"):
            raise too_many_requests(codes.OVER_SMS_SEND_RATE_LIMIT, "SMS rate limit exceeded")

    # Password sign-ins per account (the normalized e-mail address).

    async def account_attempt(self, email: str) -> None:
        """Count a password sign-in for `email`; refused past the bucket's limit."""
        if not await self.hit(ACCOUNT_BUCKET, email):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    async def account_succeeded(self, email: str) -> None:
        """A right password: the attempts before it were the owner's, not a guesser's."""
        await self.forget(ACCOUNT_BUCKET, email)
