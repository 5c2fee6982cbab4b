"""Database time is bounded per role, as on Supabase: anon 3 s, authenticated 8 s,
service_role unlimited; a request over its role's limit is cancelled (PostgREST's 57014)
and the connection goes back to work. The limits are the roles' own settings, changed with
ALTER ROLE and picked up on `notify pgrst`."""

from __future__ import annotations

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
