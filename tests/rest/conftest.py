"""A live server over a database holding the REST fixture schema (fixture.sql)."""

from __future__ import annotations

import time
import uuid
from typing import Any

import httpx
import pytest

from server.core.jwt import keys_from_settings
from tests import harness
from tests.rest import fixture


@pytest.fixture(scope="module")
def rest_database(owner_url: str, request: pytest.FixtureRequest):
    """A database with only the platform schema and the REST fixture (no app migrations)."""
    name = harness.unique_name("rest_" + request.module.__name__.rsplit(".", 1)[-1][:30])
    url = fixture.create_database(owner_url, name)
    yield url
    harness.drop_database(owner_url, name)


@pytest.fixture(scope="module")
def rest_server(rest_database: str):
    # explain (application/vnd.pgrst.plan) on, so postgrest-js's explain() can be tested
    server = harness.start_server(rest_database, args=["--no-migrate"], extra_env={"PGRST_DB_PLAN_ENABLED": "true"})
    fixture.wait_visible(server.url, server.anon_key)
    yield server
    server.stop()


class Api:
    """httpx against /rest/v1 with one role's token."""

    def __init__(self, server, token: str) -> None:
        self.base = f"{server.url}/rest/v1"
        self.headers = {"apikey": server.anon_key, "Authorization": f"Bearer {token}"}

    def request(self, method: str, path: str, headers: dict[str, str] | None = None, **kw: Any) -> httpx.Response:
        return httpx.request(method, self.base + path, headers={**self.headers, **(headers or {})}, timeout=30, **kw)

    def get(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("GET", path, **kw)

    def post(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("POST", path, **kw)

    def patch(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("PATCH", path, **kw)

    def delete(self, path: str, **kw: Any) -> httpx.Response:
        return self.request("DELETE", path, **kw)


def user_token(server, sub: str | None = None, **claims: Any) -> str:
    keys = keys_from_settings(server.settings)
    body = {"sub": sub or str(uuid.uuid4()), "role": "authenticated", "aud": "authenticated",
            "exp": int(time.time()) + 3600, **claims}
    return keys.sign(body)


@pytest.fixture(scope="module")
def anon(rest_server) -> Api:
    return Api(rest_server, rest_server.anon_key)


@pytest.fixture(scope="module")
def service(rest_server) -> Api:
    return Api(rest_server, rest_server.service_key)
