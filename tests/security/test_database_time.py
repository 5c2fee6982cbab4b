"""Database time is bounded per role, as on Supabase: anon 3 s, authenticated 8 s,
service_role unlimited; a request over its role's limit is cancelled (PostgREST's 57014)
and the connection goes back to work. The limits are the roles' own settings, changed with
ALTER ROLE and picked up on `notify pgrst`.

Slow requests filling the pool do not hold up quick ones: a kind of request seen holding
its connection past the budget may not take the connections kept for the others."""

from __future__ import annotations

import threading
import time
import uuid

import httpx
import jwt
import psycopg
import pytest

from tests import harness

FUNCTIONS = """
create or replace function public.sleep_for_test(seconds float) returns text
language sql as $$ select pg_sleep(seconds)::text $$;
create or replace function public.timeout_for_test() returns text
language sql stable as $$ select current_setting('statement_timeout') $$;
grant execute on function public.sleep_for_test(float), public.timeout_for_test() to anon, authenticated, service_role;
create table if not exists public.quick_for_test (id int primary key, title text not null);
insert into public.quick_for_test values (1, 'one row') on conflict do nothing;
grant select on public.quick_for_test to anon, authenticated;
notify pgrst, 'reload schema';
"""


@pytest.fixture(scope="module")
def server(database_url: str) -> harness.LiveServer:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(FUNCTIONS)
    live = harness.start_server(database_url, args=["--no-migrate"])
    yield live
    live.stop()


def headers_for(server: harness.LiveServer, role: str) -> dict[str, str]:
    if role == "anon":
        token = server.anon_key
    elif role == "service_role":
        token = server.service_key
    else:
        token = jwt.encode({"sub": str(uuid.uuid4()), "role": role, "exp": int(time.time()) + 600},
                           server.settings.jwt_secret, algorithm="HS256")
    return {"apikey": server.anon_key, "authorization": f"Bearer {token}"}


def timeout_of(server: harness.LiveServer, role: str) -> str:
    response = httpx.post(f"{server.url}/rest/v1/rpc/timeout_for_test", headers=headers_for(server, role), json={})
    assert response.status_code == 200, response.text
    return response.json()


def test_each_role_runs_under_its_own_statement_timeout(server: harness.LiveServer) -> None:
    assert timeout_of(server, "anon") == "3s"
    assert timeout_of(server, "authenticated") == "8s"
    assert timeout_of(server, "service_role") == "0"  # unlimited


def test_a_request_over_its_roles_limit_is_cancelled_with_57014(server: harness.LiveServer) -> None:
    response = httpx.post(f"{server.url}/rest/v1/rpc/sleep_for_test", headers=headers_for(server, "anon"),
                          json={"seconds": 30}, timeout=20)
    assert response.status_code == 500  # PostgREST maps SQLSTATE class 57 to 500
    body = response.json()
    assert body["code"] == "57014" and "statement timeout" in body["message"]
    # the connection that was cancelled serves the next request
    assert timeout_of(server, "anon") == "3s"


def test_alter_role_and_notify_change_the_limit(server: harness.LiveServer) -> None:
    dbname = psycopg.conninfo.conninfo_to_dict(server.database_url)["dbname"]
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute(psycopg.sql.SQL("alter role anon in database {} set statement_timeout = '1500ms'").format(
            psycopg.sql.Identifier(dbname)))
        conn.execute("notify pgrst, 'reload config'")
    try:
        deadline = time.monotonic() + 10
        while timeout_of(server, "anon") != "1500ms" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert timeout_of(server, "anon") == "1500ms"
        assert timeout_of(server, "authenticated") == "8s"
    finally:
        with psycopg.connect(server.database_url, autocommit=True) as conn:
            conn.execute(psycopg.sql.SQL("alter role anon in database {} reset statement_timeout").format(
                psycopg.sql.Identifier(dbname)))
            conn.execute("notify pgrst, 'reload config'")


POOL = 6  # of which SUPALITE_DB_POOL_RESERVE's default 2 are kept for quick requests
SLOW_CALLERS = 3 * POOL
QUICK_BOUND_S = 1.0  # a one-row read's own time is milliseconds; before, it queued behind the slow calls


@pytest.fixture(scope="module")
def small_pool(database_url: str, server: harness.LiveServer) -> harness.LiveServer:
    live = harness.start_server(database_url, args=["--no-migrate"], extra_env={"SUPALITE_DB_POOL_SIZE": str(POOL)})
    yield live
    live.stop()


def test_a_one_row_read_keeps_moving_while_slow_calls_hold_the_pool(small_pool: harness.LiveServer) -> None:
    """Slow calls (pg_sleep through RPC, as one signed-in user's searches) from three times
    as many clients as the pool has connections, without pause: every connection is held
    and a line forms. A one-row read by the same role then answers within the bound (it
    waited for the line ahead of it: about 2.5 s here, 6.2 s in the finding), and the slow
    calls keep being served too."""
    user = headers_for(small_pool, "authenticated")
    stop = threading.Event()
    slow: list[int] = []

    def slow_caller() -> None:
        with httpx.Client(base_url=small_pool.url, headers=user, timeout=30) as client:
            while not stop.is_set():
                slow.append(client.post("/rest/v1/rpc/sleep_for_test", json={"seconds": 1}).status_code)

    callers = [threading.Thread(target=slow_caller) for _ in range(SLOW_CALLERS)]
    for caller in callers:
        caller.start()
    quick: list[float] = []
    try:
        deadline = time.monotonic() + 20
        while not slow:  # the pool has been full for a whole slow call
            assert time.monotonic() < deadline, "no slow call came back"
            time.sleep(0.01)
        before = len(slow)
        with httpx.Client(base_url=small_pool.url, headers=user, timeout=30) as client:
            for _ in range(20):
                started = time.monotonic()
                r = client.get("/rest/v1/quick_for_test?id=eq.1")
                quick.append(time.monotonic() - started)
                assert (r.status_code, r.json()) == (200, [{"id": 1, "title": "one row"}])
                time.sleep(0.1)
        served = len(slow) - before
    finally:
        stop.set()
        for caller in callers:
            caller.join()
    print(f"one-row reads under saturation, ms: {sorted(round(q * 1000) for q in quick)}; "
          f"slow calls served meanwhile: {served}")
    assert set(slow) == {200}
    assert max(quick) < QUICK_BOUND_S
    assert served >= POOL - 2  # the slow ones kept their share meanwhile
