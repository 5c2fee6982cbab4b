"""The auth rate limits counted in PostgreSQL (auth.rate_limits): GoTrue's token buckets and
fixed windows, the account bucket, bounded keys and rows, and one count for every process
on the database; 503, not 500, when the database is gone."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Iterator
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import httpx
import psycopg
import pytest
from psycopg import AsyncConnection

from server.auth.errors import AuthError
from server.auth.ratelimit import ACCOUNT_BUCKET, MAX_KEY_LENGTH, RateLimiter, limits_from
from server.core.config import Settings
from tests import harness
from tests.auth.conftest import NEW_API, auth_api, auth_server, new_email
from tests.security.test_outages import Database

T = TypeVar("T")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(work: Awaitable[T]) -> T:
    async def main() -> T:
        return await work
    return asyncio.run(main())


@pytest.fixture
def limiter_of(database_url: str) -> Iterator[Any]:
    """RateLimiter(...) counting in the module's database, on an empty table."""
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("truncate auth.rate_limits")

    @asynccontextmanager
    async def connect() -> AsyncIterator[AsyncConnection[Any]]:
        async with await AsyncConnection.connect(database_url, autocommit=True) as conn:
            yield conn

    def make(settings: Settings | None = None, clock: Clock | None = None, enabled: bool = True) -> RateLimiter:
        return RateLimiter(enabled, connect, limits_from(settings or Settings()), clock=clock or Clock())
    yield make


def rows(database_url: str, bucket: str | None = None) -> list[tuple[str, str]]:
    with psycopg.connect(database_url) as conn:
        return conn.execute("select bucket, key from auth.rate_limits where bucket = coalesce(%s, bucket)",
                            [bucket]).fetchall()


def refused_now(work: Awaitable[None]) -> tuple[int, str]:
    with pytest.raises(AuthError) as refused:
        run(work)
    return refused.value.status, refused.value.code


# The limiter against the database, with a test clock.

GUESSER, OWNER = "203.0.113.66", "198.51.100.20"


def test_account_attempts_are_refused_past_ten_then_allowed_when_the_window_ends(limiter_of: Any) -> None:
    clock = Clock()
    limiter = limiter_of(clock=clock)
    for _ in range(10):
        run(limiter.account_attempt("victim@example.com", GUESSER))
    assert refused_now(limiter.account_attempt("victim@example.com", GUESSER)) == (429, "over_request_rate_limit")
    run(limiter.account_attempt("other@example.com", GUESSER))  # another account is not affected
    clock.now += 300
    run(limiter.account_attempt("victim@example.com", GUESSER))


def test_a_guesser_does_not_lock_the_owner_out(limiter_of: Any) -> None:
    """Counted per account and client: the guesser's refusal is its own."""
    limiter = limiter_of()
    for _ in range(10):
        run(limiter.account_attempt("victim@example.com", GUESSER))
    refused_now(limiter.account_attempt("victim@example.com", GUESSER))
    for _ in range(10):
        run(limiter.account_attempt("victim@example.com", OWNER))


def test_a_right_password_clears_the_count(limiter_of: Any) -> None:
    limiter = limiter_of()
    for _ in range(9):
        run(limiter.account_attempt("owner@example.com", OWNER))
    run(limiter.account_succeeded("owner@example.com", OWNER))
    for _ in range(10):
        run(limiter.account_attempt("owner@example.com", OWNER))


def test_sign_ups_and_the_other_endpoints_count_apart(limiter_of: Any) -> None:
    limiter = limiter_of()
    for _ in range(21):
        assert run(limiter.hit("signup", "192.0.2.1"))
    for _ in range(10):
        assert run(limiter.hit("token_refresh", "192.0.2.1"))
    for _ in range(30):
        assert run(limiter.hit("recover", "192.0.2.1"))
    assert not run(limiter.hit("recover", "192.0.2.1"))
    assert run(limiter.hit("otp", "192.0.2.1")) and run(limiter.hit("signup", "192.0.2.1"))


def test_a_token_bucket_refills_at_its_rate(limiter_of: Any) -> None:
    """GoTrue's arithmetic: a setting of 3 is a bucket of 30 (its fixed burst) refilled at 3 per
    5 minutes."""
    clock = Clock()
    limiter = limiter_of(Settings(rate_limit_sign_in_sign_ups=3), clock)
    assert all(run(limiter.hit("signup", "ip")) for _ in range(30))
    assert not run(limiter.hit("signup", "ip"))  # refused requests take no token
    clock.now += 99  # one request per 100 s
    assert not run(limiter.hit("signup", "ip"))
    clock.now += 1
    assert run(limiter.hit("signup", "ip")) and not run(limiter.hit("signup", "ip"))
    clock.now += 10_000  # full again, never more than the burst
    assert all(run(limiter.hit("signup", "ip")) for _ in range(30)) and not run(limiter.hit("signup", "ip"))


def test_a_large_setting_refills_faster_but_holds_30(limiter_of: Any) -> None:
    """100 per 5 minutes (the CLI test project's value): 30 at once, then one every 3 s."""
    clock = Clock()
    limiter = limiter_of(Settings(rate_limit_sign_in_sign_ups=100), clock)
    assert all(run(limiter.hit("otp", "ip")) for _ in range(30)) and not run(limiter.hit("otp", "ip"))
    clock.now += 3
    assert run(limiter.hit("otp", "ip")) and not run(limiter.hit("otp", "ip"))


def test_the_token_limiter_holds_gotrue_burst_of_30(limiter_of: Any) -> None:
    clock = Clock()
    limiter = limiter_of(clock=clock)  # token_refresh: 150 per 5 minutes, burst 30
    assert all(run(limiter.hit("token_refresh", "ip")) for _ in range(30))
    assert not run(limiter.hit("token_refresh", "ip"))
    clock.now += 2  # 0.5 per second
    assert run(limiter.hit("token_refresh", "ip")) and not run(limiter.hit("token_refresh", "ip"))


def test_anonymous_sign_ins_refill_per_hour(limiter_of: Any) -> None:
    clock = Clock()
    limiter = limiter_of(Settings(rate_limit_anonymous_users=2), clock)
    assert run(limiter.hit("anonymous_users", "ip")) and run(limiter.hit("anonymous_users", "ip"))
    assert not run(limiter.hit("anonymous_users", "ip"))
    clock.now += 1800
    assert run(limiter.hit("anonymous_users", "ip")) and not run(limiter.hit("anonymous_users", "ip"))


def test_mails_and_sms_are_counted_for_the_whole_server_per_hour(limiter_of: Any) -> None:
    clock = Clock()
    limiter = limiter_of(Settings(rate_limit_email_sent=2, rate_limit_sms_sent=1), clock)
    run(limiter.check_email())
    run(limiter.check_email())
    assert refused_now(limiter.check_email()) == (429, "over_email_send_rate_limit")
    run(limiter.check_sms())
    assert refused_now(limiter.check_sms()) == (429, "over_sms_send_rate_limit")
    clock.now += 3600
    run(limiter.check_email())
    run(limiter.check_sms())


def test_a_zero_per_5_minutes_limit_is_gotrue_bucket_that_never_refills(limiter_of: Any) -> None:
    """GoTrue's bucket of 30 with a rate of 0: 30 requests, then none until its key's hour ends."""
    clock = Clock()
    limiter = limiter_of(Settings(rate_limit_sign_in_sign_ups=0, rate_limit_token_refresh=-5), clock)
    for bucket in ("signup", "token_refresh"):
        assert all(run(limiter.hit(bucket, "ip")) for _ in range(30)) and not run(limiter.hit(bucket, "ip"))
    clock.now += 3599
    assert not run(limiter.hit("signup", "ip"))
    clock.now += 1
    assert run(limiter.hit("signup", "ip"))


def test_a_zero_or_negative_hourly_limit_refuses_everything(limiter_of: Any) -> None:
    limiter = limiter_of(Settings(rate_limit_sms_sent=0, rate_limit_email_sent=-1, rate_limit_anonymous_users=0))
    assert not run(limiter.hit("anonymous_users", "ip"))
    refused_now(limiter.check_email())
    refused_now(limiter.check_sms())


def test_disabled_limits_count_nothing(limiter_of: Any, database_url: str) -> None:
    limiter = limiter_of(enabled=False)
    for _ in range(50):
        run(limiter.account_attempt("x@example.com", GUESSER))
    assert rows(database_url) == []


def test_limiters_on_one_database_count_together(limiter_of: Any) -> None:
    """Two processes' limiters: one bucket between them."""
    first, second = limiter_of(), limiter_of()
    answers = [run(limiter.hit("signup", "ip")) for limiter in (first, second) * 16]
    assert answers == [True] * 30 + [False] * 2


def test_concurrent_checks_take_exactly_the_burst(limiter_of: Any) -> None:
    limiter = limiter_of()

    async def many() -> list[bool]:
        return list(await asyncio.gather(*(limiter.hit("signup", "ip") for _ in range(40))))
    assert sorted(run(many())) == [False] * 10 + [True] * 30


def test_keys_are_bounded_in_length_and_never_hold_nul(limiter_of: Any, database_url: str) -> None:
    limiter = limiter_of()
    hostile = "a\x00" + "b" * 100_000
    for _ in range(10):
        run(limiter.account_attempt(hostile, "h\x00" * 100))
    refused_now(limiter.account_attempt(hostile, "h\x00" * 100))
    [(_, key)] = rows(database_url, ACCOUNT_BUCKET)
    assert len(key) == MAX_KEY_LENGTH and "\x00" not in key


def test_rows_that_no_longer_count_are_swept(limiter_of: Any, database_url: str) -> None:
    """A spray of keys leaves rows only while they count: full buckets and ended windows go."""
    clock = Clock()
    spray = limiter_of(clock=clock)
    for i in range(300):
        run(spray.account_attempt(f"spray-{i}@example.com", GUESSER))
        run(spray.hit("signup", f"2001:db8::{i:x}"))
    run(spray.hit("signup", "198.51.100.7"))
    assert len(rows(database_url)) == 601
    clock.now += 60  # the sign-up buckets are full again (one token back in 10 s); the windows still count
    run(spray.sweep())
    assert len(rows(database_url, "signup")) == 0 and len(rows(database_url, ACCOUNT_BUCKET)) == 300
    clock.now += 300
    later = limiter_of(clock=clock)  # a new process: its first check sweeps
    run(later.account_attempt("new@example.com", OWNER))
    assert rows(database_url) == [(ACCOUNT_BUCKET, f"{OWNER} new@example.com")]


# Servers sharing the database.

def refused(response: httpx.Response) -> bool:
    return response.status_code == 429 and response.json()["code"] == "over_request_rate_limit"


def test_two_servers_on_one_database_share_the_count(database_url: str) -> None:
    """Requests alternate between two server processes: the 30th /verify of an IP is the last
    allowed, whichever process answers it (per process, each would allow 30)."""
    env = {"SUPALITE_RATE_LIMITS": "true"}
    with auth_server(database_url, env) as one, auth_server(database_url, env) as two, \
            auth_api(one) as first, auth_api(two) as second:
        assert one.process.pid != two.process.pid
        headers = {"X-Forwarded-For": "203.0.113.9", **NEW_API}
        body = {"type": "signup", "email": new_email(), "token": "123456"}
        answers = [client.post("/verify", json=body, headers=headers) for client in (first, second) * 16]
        assert {r.status_code for r in answers[:30]} == {403}, [r.text for r in answers]
        assert all(refused(r) for r in answers[30:]), [r.text for r in answers]
        # counted per IP: another client still passes, on either server
        other = {"X-Forwarded-For": "203.0.113.10", **NEW_API}
        assert second.post("/verify", json=body, headers=other).status_code == 403


@pytest.fixture(scope="module")
def scratch_database() -> Iterator[Database]:
    from server.provision.project import migrate

    db = Database()
    migrate(harness.base_settings(db.url), db.url)
    yield db
    db.stop()


def test_a_check_without_the_database_answers_503(scratch_database: Database) -> None:
    """The rate limit is the first thing /signup asks the database: gone, it answers as every
    auth query then does (503, which auth-js retries), and counts again once it is back."""
    with auth_server(scratch_database.url, {"SUPALITE_RATE_LIMITS": "true"}) as server, auth_api(server) as api:
        body = {"email": "not-an-email", "password": "secret-pass"}
        assert api.post("/signup", json=body).status_code == 400
        scratch_database.stop()
        try:
            down = api.post("/signup", json=body)
        finally:
            scratch_database.start()
        assert down.status_code == 503 and down.json()["error_code"] == "unexpected_failure", down.text
        for _ in range(100):  # the pool reconnects on its own
            if api.post("/signup", json=body).status_code == 400:
                break
            time.sleep(0.1)
        else:
            pytest.fail("the limiter did not come back with the database")
        with psycopg.connect(scratch_database.url) as conn:
            assert conn.execute("select count(*) from auth.rate_limits where bucket = 'signup'").fetchone() == (1,)
