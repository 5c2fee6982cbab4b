"""GoTrue's rate limits, from the SUPALITE_AUTH_RATE_LIMIT_* settings (Supabase's
`[auth.rate_limit]` names), and a bound on wrong passwords per account and client.

GoTrue's arithmetic (internal/api/apilimiter): one limiter per endpoint, keyed by client.
`sign_in_sign_ups` (GOTRUE_RATE_LIMIT_OTP) sets six separate ones, for /signup, /otp,
/magiclink, /recover, /resend and PUT /user; `token_refresh` sets the one of /token, which
every grant shares (password, refresh_token, id_token, pkce); `token_verifications` the one of
/verify (GET and POST); GOTRUE_RATE_LIMIT_PASSKEY the passkey sign-ins and
GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER the OAuth client registrations. Each is a
token bucket (tollbooth over x/time/rate) of GoTrue's fixed burst of 30, refilled at N per 5
minutes, whatever N: a setting of 3 still lets 30 through at once, then one per 100 s. A
setting of 0 refills nothing: GoTrue's bucket then lets 30 through until its key expires an
hour later, which is what a fixed window of 30 an hour gives here. Anonymous sign-ins hold N,
refilled at N per hour; MFA challenges, and verifications apart, hold 30 refilled at
GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY (15) a minute. Mails and SMS are counted for the
whole server in fixed hourly windows (GoTrue's IntervalLimiter): `email_sent`, `sms_sent`;
and each user gets one mail (or SMS) of a kind per GOTRUE_SMTP_MAX_FREQUENCY
(GOTRUE_SMS_MAX_FREQUENCY), read from the user's `*_sent_at` column.

What the key is: GoTrue counts a request by the value of the GOTRUE_RATE_LIMIT_HEADER header
(hosted Supabase sets it at its proxy) and does not count requests without it, so without that
setting (as under `supabase start`) it applies none of these per-client limits. Here, by
default (SUPALITE_AUTH_RATE_LIMIT_BY=address), a request without the header is counted by the
client's address instead: leaving the header out does not escape the limits, and a server
without a proxy is protected too. SUPALITE_AUTH_RATE_LIMIT_BY=header is GoTrue's rule exactly;
a CLI project's config.toml sets it, so `supalite start` counts as `supabase start` does.

GoTrue bounds password guessing only by the /token bucket of the guessing client. Here wrong
passwords are also counted per account and client (the normalized e-mail address or phone
number, with the client's key): past 10 in 5 minutes that client is refused (429) for that
account until its window ends. Only that client: a stranger guessing from elsewhere cannot
lock the owner out, and a right password is never refused for what others did (the count is
taken before the check, so concurrent guesses count too, and a right password clears its own
client's count). Every address is counted, registered or not, so the refusal says nothing
about which accounts exist.

Counts are kept in PostgreSQL (the unlogged auth.rate_limits, server/provision/platform_schema/
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

from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import too_many_requests
from server.auth.http import client_ip
from server.auth.models import rate_limits, users
from server.core.config import Settings
from server.core.context import AppContext


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
GOTRUE_BURST = 30  # apilimiter's SetBurst(30) of the per-5-minute and per-minute limiters
MINUTE, FIVE_MINUTES, HOUR = 60, 300, 3600
WRONG_PASSWORDS = 10  # per account and client, per 5 minutes


def per_five_minutes(count: int) -> Limit:
    """newLimiterPer5mOver1h: a bucket of 30 refilled at `count` per 5 minutes; with nothing to
    refill it, 30 until the key's hour is over."""
    if count <= 0:
        return Limit(GOTRUE_BURST, HOUR)
    return Limit(count, FIVE_MINUTES, burst=GOTRUE_BURST)


def limits_from(settings: Settings) -> dict[str, Limit]:
    """Every bucket's limit, from the settings."""
    sign_ins = per_five_minutes(settings.rate_limit_sign_in_sign_ups)
    anonymous = max(settings.rate_limit_anonymous_users, 0)  # 0 (or less): none allowed
    mfa = Limit(max(settings.mfa_rate_limit_challenge_and_verify, 0), MINUTE, burst=GOTRUE_BURST)
    return {
        **{name: sign_ins for name in SIGN_IN_SIGN_UPS},
        # GoTrue has no limiter on /authorize (each call stores a flow state): it gets the one of
        # the other unauthenticated sign-in endpoints.
        "authorize": sign_ins,
        "token_refresh": per_five_minutes(settings.rate_limit_token_refresh),
        "token_verifications": per_five_minutes(settings.rate_limit_token_verifications),
        "passkey": per_five_minutes(settings.rate_limit_passkey),
        "oauth_client_register": per_five_minutes(settings.rate_limit_oauth_client_register),
        "anonymous_users": Limit(anonymous, HOUR, burst=anonymous),
        "email_sent": Limit(max(settings.rate_limit_email_sent, 0), HOUR),
        "sms_sent": Limit(max(settings.rate_limit_sms_sent, 0), HOUR),
        "mfa_challenge": mfa,
        "mfa_verify": mfa,
        ACCOUNT_BUCKET: Limit(WRONG_PASSWORDS, FIVE_MINUTES),
    }


# The defaults of config.toml's [auth.rate_limit].
LIMITS = limits_from(Settings())
# Keys are IPs and normalized e-mail addresses (at most 255 characters once validated) or
# phone numbers: anything longer is cut, so that a hostile key cannot fill the index.
MAX_KEY_LENGTH = 255
# How often each process deletes the rows that no longer count.
SWEEP_SECONDS = 30.0

Connect = Callable[[], AbstractAsyncContextManager[AsyncConnection[Any]]]

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
    key_header: str = ""  # GOTRUE_RATE_LIMIT_HEADER
    header_only: bool = False  # SUPALITE_AUTH_RATE_LIMIT_BY=header: GoTrue's rule
    mail_interval: float = 60.0  # GOTRUE_SMTP_MAX_FREQUENCY, seconds
    sms_interval: float = 60.0  # GOTRUE_SMS_MAX_FREQUENCY, seconds
    _next_sweep: float = field(default=0.0)

    @classmethod
    def from_context(cls, ctx: AppContext) -> RateLimiter:
        settings = ctx.settings
        return cls(settings.rate_limits_enabled, ctx.admin_pool.connection, limits_from(settings),
                   key_header=settings.rate_limit_header, header_only=settings.rate_limit_by == "header",
                   mail_interval=settings.smtp_max_frequency, sms_interval=settings.sms_max_frequency)

    def client_key(self, request: Request) -> str | None:
        """Who a per-client limit counts: the rate-limit header's whole value (as GoTrue), else
        the client's address; None (not counted) under GoTrue's rule when the header is absent."""
        if self.key_header:
            value = request.headers.get(self.key_header, "")
            if value:
                return value
        return None if self.header_only else client_ip(request)

    async def hit(self, bucket: str, key: str) -> bool:
        """Count one request; False when the bucket's limit is exceeded for `key`."""
        if not self.enabled:
            return True
        limit = self.limits[bucket]
        allowance = limit.count if limit.burst is None else limit.burst
        if allowance < 1:  # a limit of 0 (or less) refuses everything: nothing to count
            return False
        async with self._connection() as conn:
            if limit.burst is None:
                allowed = await rate_limits.count_in_window(conn, bucket, bounded_key(key), self._now(),
                                                            count=limit.count, per_seconds=limit.per_seconds)
            else:
                allowed = await rate_limits.take_token(conn, bucket, bounded_key(key), self._now(),
                                                       capacity=float(limit.burst), rate=limit.count / limit.per_seconds)
            await self._sweep_if_due(conn)
        return allowed

    async def forget(self, bucket: str, key: str) -> None:
        if self.enabled:
            async with self._connection() as conn:
                await rate_limits.forget(conn, bucket, bounded_key(key))

    async def sweep(self) -> None:
        """Delete the rows that no longer count (a batch: the next sweep takes the rest)."""
        async with self._connection() as conn:
            await rate_limits.sweep(conn, self._now())

    async def _sweep_if_due(self, conn: AsyncConnection[Any]) -> None:
        due = time.monotonic()
        if due >= self._next_sweep:
            self._next_sweep = due + SWEEP_SECONDS
            await conn.commit()  # the request's count is kept, whatever the sweep does
            await rate_limits.sweep(conn, self._now())

    def _connection(self) -> AbstractAsyncContextManager[AsyncConnection[Any]]:
        if self.connect is None:
            raise RuntimeError("rate limits are on, without a database to count in")
        return self.connect()

    def _now(self) -> float | None:
        return None if self.clock is None else self.clock()

    async def check(self, bucket: str, request: Request) -> None:
        """One request of the client in `bucket` (a per-client name of `limits_from`); 429 past
        its limit."""
        key = self.client_key(request)
        if key is not None and not await self.hit(bucket, key):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    async def check_email(self) -> None:
        if not await self.hit("email_sent", "*"):
            raise too_many_requests(codes.OVER_EMAIL_SEND_RATE_LIMIT, "email rate limit exceeded")

    async def check_mail_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str) -> None:
        """A mail about to be sent to a user: GoTrue's per-user frequency (GOTRUE_SMTP_MAX_FREQUENCY
        for each kind, from the `sent_at_column` of auth.users), then the whole server's
        email_sent count."""
        await self._check_frequency(conn, user_id, sent_at_column, self.mail_interval,
                                    codes.OVER_EMAIL_SEND_RATE_LIMIT)
        await self.check_email()

    async def check_sms_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str) -> None:
        """An SMS about to be sent to a user: GOTRUE_SMS_MAX_FREQUENCY (the server's sms_sent
        count is taken when it is sent, test numbers excepted)."""
        await self._check_frequency(conn, user_id, sent_at_column, self.sms_interval,
                                    codes.OVER_SMS_SEND_RATE_LIMIT)

    async def _check_frequency(self, conn: AsyncConnection, user_id: Any, sent_at_column: str, interval: float,
                               code: str) -> None:
        """429 while the last send of this kind is under `interval` seconds old, with the
        seconds left truncated as GoTrue's generateFrequencyLimitErrorMessage does."""
        if not self.enabled or interval <= 0:
            return
        left = await users.seconds_until_resend(conn, user_id, sent_at_column, interval)
        if left is not None:
            raise too_many_requests(code, f"For security purposes, you can only request this after {left} seconds.")

    async def check_sms(self) -> None:
        """Count one SMS about to be sent (the whole server's sms_sent bucket, per hour)."""
        if not await self.hit("sms_sent", "*"):
            raise too_many_requests(codes.OVER_SMS_SEND_RATE_LIMIT, "SMS rate limit exceeded")

    # Password sign-ins per account (the normalized e-mail address or phone) and client.

    def account_client(self, request: Request) -> str:
        """The client a password attempt is counted for: its key, or its address when the
        per-client limits would not count it."""
        return self.client_key(request) or client_ip(request)

    async def account_attempt(self, login: str, client: str) -> None:
        """Count a password sign-in for `login` from `client`; refused past the bucket's limit."""
        if not await self.hit(ACCOUNT_BUCKET, _account_key(login, client)):
            raise too_many_requests(codes.OVER_REQUEST_RATE_LIMIT, "Request rate limit reached")

    async def account_succeeded(self, login: str, client: str) -> None:
        """A right password: this client's attempts were the owner's, not a guesser's."""
        await self.forget(ACCOUNT_BUCKET, _account_key(login, client))


def _account_key(login: str, client: str) -> str:
    # The client first: a login long enough to be cut by bounded_key cannot push it out.
    return f"{bounded_key(client)[:64]} {login}"
