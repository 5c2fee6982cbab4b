"""GET /authorize is bounded (issue 33, hole 6): counted per client like GoTrue's other
unauthenticated endpoints, and the flow states it stores go once they can no longer be used,
while a mailed link's PKCE flow lives as long as its link."""

from __future__ import annotations

import itertools
import time
import uuid
from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests import harness
from tests.auth import oidc_provider
from tests.auth.conftest import NEW_API, auth_api, auth_server
from tests.auth.test_oauth import query

SITE = "http://localhost:3000"
_ips = (f"203.0.113.{i}" for i in itertools.count(1))


def client_ip() -> dict[str, str]:
    return {"X-Forwarded-For": next(_ips), **NEW_API}


@pytest.fixture(scope="module")
def server(database_url: str, provider: oidc_provider.RunningProvider) -> Iterator[harness.LiveServer]:
    # sign_in_sign_ups = 1: GoTrue's bucket of 30, refilled at one per 5 minutes.
    with auth_server(database_url, {**provider.server_env("keycloak"), "GOTRUE_SITE_URL": SITE,
                                    "GOTRUE_URI_ALLOW_LIST": f"{SITE}/**", "SUPALITE_RATE_LIMITS": "true",
                                    "SUPALITE_AUTH_RATE_LIMIT_SIGN_IN_SIGN_UPS": "1"}) as live:
        yield live


@pytest.fixture(scope="module")
def api(server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(server) as client:
        yield client


def test_authorize_is_counted_per_client(api: httpx.Client, server: harness.LiveServer) -> None:
    headers, referrer = client_ip(), f"{SITE}/{uuid.uuid4()}"
    answers = [api.get("/authorize", params={"provider": "keycloak", "redirect_to": referrer}, headers=headers)
               for _ in range(40)]
    assert [a.status_code for a in answers[:30]] == [302] * 30
    assert {a.status_code for a in answers[30:]} == {429}
    assert answers[-1].json() == {"code": "over_request_rate_limit", "message": "Request rate limit reached"}
    with psycopg.connect(server.database_url) as conn:
        stored = conn.execute("select count(*) from auth.flow_state where referrer = %s", [referrer]).fetchone()
    assert stored == (30,)  # the refused calls stored nothing
    # Another client has its own bucket.
    assert api.get("/authorize", params={"provider": "keycloak"}, headers=client_ip()).status_code == 302


def _authorize(api: httpx.Client) -> str:
    response = api.get("/authorize", params={"provider": "keycloak"}, headers=client_ip())
    assert response.status_code == 302, response.text
    return query(response.headers["location"])["state"]


def _flow(conn: psycopg.Connection, method: str, age: str, issued: str | None = None) -> uuid.UUID:
    flow_id = uuid.uuid4()
    conn.execute("insert into auth.flow_state (id, auth_code, code_challenge_method, code_challenge, provider_type,"
                 " created_at, updated_at, authentication_method, auth_code_issued_at)"
                 " values (%s, %s, 's256', 'c', 'email', now() - %s::interval, now(), %s, now() - %s::interval)",
                 [flow_id, str(uuid.uuid4()), age, method, issued])
    return flow_id


def _exists(conn: psycopg.Connection, flow_id: uuid.UUID | str) -> bool:
    return conn.execute("select 1 from auth.flow_state where id = %s", [flow_id]).fetchone() is not None


def test_unusable_flow_states_are_swept(api: httpx.Client, server: harness.LiveServer) -> None:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        expired = _authorize(api)
        conn.execute("update auth.flow_state set created_at = now() - interval '301 seconds' where id = %s", [expired])
        fresh_oauth = _authorize(api)
        conn.execute("update auth.flow_state set created_at = now() - interval '100 seconds' where id = %s",
                     [fresh_oauth])
        link_alive = _flow(conn, "email/signup", "10 minutes")  # its mailed link lasts an hour
        link_dead = _flow(conn, "recovery", "2 hours")
        magic_code_alive = _flow(conn, "magiclink", "2 hours", issued="1 minute")
        _authorize(api)  # a new flow: the sweep runs
        assert not _exists(conn, expired) and not _exists(conn, link_dead)
        assert _exists(conn, fresh_oauth) and _exists(conn, link_alive) and _exists(conn, magic_code_alive)
        # The swept state's callback is GoTrue's "not found or expired".
        gone = httpx.get(f"{server.url}/auth/v1/callback", params={"state": expired, "code": "c"})
        assert query(gone.headers["location"])["error_code"] == "bad_oauth_state"


def test_the_sweep_never_waits_for_a_locked_row(api: httpx.Client, server: harness.LiveServer) -> None:
    with psycopg.connect(server.database_url, autocommit=True) as conn, psycopg.connect(server.database_url) as holder:
        held = _authorize(api)
        conn.execute("update auth.flow_state set created_at = now() - interval '1 hour' where id = %s", [held])
        holder.execute("select 1 from auth.flow_state where id = %s for update", [held])  # held open
        started = time.monotonic()
        _authorize(api)
        assert time.monotonic() - started < 5
        assert _exists(conn, held)
        holder.rollback()
        _authorize(api)
        assert not _exists(conn, held)
