"""Helpers for the auth API tests: an httpx client on the module's live server, and the
servers with settings of their own (`auth_server`), their clients and admin headers."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest

from tests import harness
from tests.auth import oidc_provider

NEW_API = {"X-Supabase-Api-Version": "2024-01-01"}


@contextmanager
def auth_server(database_url: str, env: dict[str, str] | None = None) -> Iterator[harness.LiveServer]:
    """A server of its own on the module's (migrated) database, with `env` on top; always stopped."""
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env=env)
    try:
        yield server
    finally:
        server.stop()


def auth_api(server: harness.LiveServer, *, new_api: bool = False,
             headers: dict[str, str] | None = None) -> httpx.Client:
    """An httpx client on the server's /auth/v1 with the anon key (or `headers`), to use in a `with`."""
    return httpx.Client(base_url=f"{server.url}/auth/v1",
                        headers={"apikey": server.anon_key, **(NEW_API if new_api else {}), **(headers or {})},
                        timeout=30)


def admin_headers_of(server: harness.LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {server.service_key}", "apikey": server.service_key}


@pytest.fixture(scope="module")
def provider() -> Iterator[oidc_provider.RunningProvider]:
    """The local OpenID provider (tests/auth/oidc_provider.py), for the module's servers."""
    with oidc_provider.running() as running:
        yield running


@pytest.fixture(scope="module")
def api(live_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with auth_api(live_server) as client:
        yield client


@pytest.fixture(scope="module")
def admin_headers(live_server: harness.LiveServer) -> dict[str, str]:
    return admin_headers_of(live_server)


def new_email(prefix: str = "u") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def sign_up(api: httpx.Client, email: str | None = None, password: str = "secret-pass", **extra: Any) -> dict[str, Any]:
    response = api.post("/signup", json={"email": email or new_email(), "password": password, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def bearer(session: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}
