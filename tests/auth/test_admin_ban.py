"""ban_duration on PUT /admin/users/{id} and POST /admin/users: Go's time.ParseDuration, so an
out-of-range or malformed duration is GoTrue's 400, never a 500 (issue 33, hole 7)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import psycopg
import pytest

from server.auth.admin import GoDurationError, parse_go_duration
from tests import harness
from tests.auth.conftest import NEW_API, new_email, sign_up

HOUR = 3600 * 10**9


@pytest.mark.parametrize(("text", "nanoseconds"), [
    ("24h", 24 * HOUR), ("1h30m", HOUR * 3 // 2), ("0", 0), ("-0", 0), ("+5m", 300 * 10**9), ("-1h", -HOUR),
    ("1.5h", HOUR * 3 // 2), (".5s", 5 * 10**8), ("1.s", 10**9), ("1µs", 1000), ("1μs", 1000), ("1us", 1000),
    ("2562047h", 2562047 * HOUR), ("9223372036854775807ns", 2**63 - 1), ("-9223372036854775808ns", -(2**63)),
    ("1h1h", 2 * HOUR), ("0.000000001s", 1),
])
def test_go_durations(text: str, nanoseconds: int) -> None:
    assert parse_go_duration(text) == nanoseconds


@pytest.mark.parametrize(("text", "message"), [
    ("99999999999h", 'time: invalid duration "99999999999h"'),
    ("2562048h", 'time: invalid duration "2562048h"'),
    ("9223372036854775808ns", 'time: invalid duration "9223372036854775808ns"'),
    ("99999999999999999999s", 'time: invalid duration "99999999999999999999s"'),
    ("forever", 'time: invalid duration "forever"'),
    ("", 'time: invalid duration ""'), ("-", 'time: invalid duration "-"'), (".h", 'time: invalid duration ".h"'),
    ("5", 'time: missing unit in duration "5"'),
    ("1d", 'time: unknown unit "d" in duration "1d"'),
    ("1e3h", 'time: unknown unit "e" in duration "1e3h"'),
    ("1h-1m", 'time: unknown unit "h-" in duration "1h-1m"'),
    ("1\u00e9s", 'time: unknown unit "\\xc3\\xa9s" in duration "1\\xc3\\xa9s"'),
])
def test_go_duration_errors(text: str, message: str) -> None:
    with pytest.raises(GoDurationError) as raised:
        parse_go_duration(text)
    assert str(raised.value) == message


def test_a_huge_duration_is_refused_without_reading_it() -> None:
    with pytest.raises(GoDurationError, match="invalid duration"):
        parse_go_duration("9" * 100_000 + "h")  # int() of it would raise ValueError: a 500


def _banned_until(live: harness.LiveServer, user_id: str) -> datetime | None:
    with psycopg.connect(live.database_url) as conn:
        row = conn.execute("select banned_until from auth.users where id = %s", [user_id]).fetchone()
    assert row is not None
    until: datetime | None = row[0]
    return until


def test_an_out_of_range_ban_is_gotrues_400(api: httpx.Client, admin_headers: dict[str, str],
                                            live_server: harness.LiveServer) -> None:
    user_id = sign_up(api)["user"]["id"]
    headers = {**admin_headers, **NEW_API}
    for value, message in (("99999999999h", 'time: invalid duration "99999999999h"'),
                           ("9" * 5000 + "h", None), ("1d", 'time: unknown unit "d" in duration "1d"'),
                           ("5", 'time: missing unit in duration "5"')):
        response = api.put(f"/admin/users/{user_id}", json={"ban_duration": value}, headers=headers)
        assert response.status_code == 400, response.text
        body = response.json()
        assert body["code"] == "validation_failed" and body["message"].startswith("invalid format for ban duration: ")
        if message:
            assert body["message"] == f"invalid format for ban duration: {message}"
    assert _banned_until(live_server, user_id) is None
    email = new_email("ban-create")
    created = api.post("/admin/users", json={"email": email, "ban_duration": "99999999999h"}, headers=headers)
    assert created.status_code == 400 and created.json() == {
        "code": "validation_failed", "message": 'invalid format for ban duration: time: invalid duration "99999999999h"'}
    with psycopg.connect(live_server.database_url) as conn:
        assert conn.execute("select 1 from auth.users where email = %s", [email]).fetchone() is None


def test_bans_at_go_durations_edges(api: httpx.Client, admin_headers: dict[str, str],
                                    live_server: harness.LiveServer) -> None:
    user_id = sign_up(api)["user"]["id"]
    longest = api.put(f"/admin/users/{user_id}", json={"ban_duration": "2562047h"}, headers=admin_headers)
    assert longest.status_code == 200, longest.text
    until = _banned_until(live_server, user_id)
    assert until is not None and until > datetime.now(UTC) + timedelta(days=365 * 290)
    # A zero duration lifts the ban (GoTrue's User.Ban), as "none" does; a negative one ends it.
    assert api.put(f"/admin/users/{user_id}", json={"ban_duration": "0"}, headers=admin_headers).status_code == 200
    assert _banned_until(live_server, user_id) is None
    assert api.put(f"/admin/users/{user_id}", json={"ban_duration": "-1h"}, headers=admin_headers).status_code == 200
    past = _banned_until(live_server, user_id)
    assert past is not None and past < datetime.now(UTC)
    created = api.post("/admin/users", json={"email": new_email("ban-long"), "ban_duration": "2562047h"},
                       headers=admin_headers)
    assert created.status_code == 200 and created.json()["banned_until"] > "2300"
