"""GoTrue's rate limits (per client IP; mails per hour for the whole server).

Counts are kept per process (like GoTrue's in-memory limiter). Off when
SUPALITE_RATE_LIMITS=false, which the test harness sets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from starlette.requests import Request

from server.auth.errors import too_many_requests
from server.auth.http import client_ip


@dataclass(frozen=True)
class Limit:
    count: int
    per_seconds: int


# GoTrue / supabase config.toml defaults ([auth.rate_limit]).
LIMITS = {
    "sign_in_sign_ups": Limit(30, 300),
    "token_refresh": Limit(150, 300),
    "token_verifications": Limit(30, 300),
    "anonymous_users": Limit(30, 3600),
    "email_sent": Limit(30, 3600),
}


@dataclass
class RateLimiter:
    enabled: bool
    limits: dict[str, Limit] = field(default_factory=lambda: dict(LIMITS))
    _windows: dict[tuple[str, str], tuple[float, int]] = field(default_factory=dict)

    def hit(self, bucket: str, key: str) -> bool:
        """Count one request; False when the bucket's limit is exceeded for `key`."""
        if not self.enabled:
            return True
        limit = self.limits[bucket]
        now = time.monotonic()
        start, used = self._windows.get((bucket, key), (now, 0))
        if now - start >= limit.per_seconds:
            start, used = now, 0
        if used >= limit.count:
            return False
        self._windows[(bucket, key)] = (start, used + 1)
        return True

    def check(self, bucket: str, request: Request) -> None:
        if not self.hit(bucket, client_ip(request)):
            raise too_many_requests("over_request_rate_limit", "Request rate limit reached")

    def check_email(self) -> None:
        if not self.hit("email_sent", "*"):
            raise too_many_requests("over_email_send_rate_limit", "email rate limit exceeded")
