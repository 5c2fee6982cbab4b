"""Helpers for the auth API tests: an httpx client on the module's live server."""

from __future__ import annotations

import uuid
from typing import Any
from collections.abc import Iterator

import httpx
import pytest

from tests import harness

NEW_API = {"X-Supabase-Api-Version": "2024-01-01"}


@pytest.fixture(scope="module")
def api(live_server: harness.LiveServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"{live_server.url}/auth/v1", headers={"apikey": live_server.anon_key},
                      timeout=30) as client:
        yield client


@pytest.fixture(scope="module")
def admin_headers(live_server: harness.LiveServer) -> dict[str, str]:
    return {"Authorization": f"Bearer {live_server.service_key}", "apikey": live_server.service_key}


def new_email(prefix: str = "u") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def sign_up(api: httpx.Client, email: str | None = None, password: str = "secret-pass", **extra: Any) -> dict[str, Any]:
    response = api.post("/signup", json={"email": email or new_email(), "password": password, **extra})
    assert response.status_code == 200, response.text
    return response.json()


def bearer(session: dict[str, Any]) -> dict[str, str]:
    return {"Authorization": f"Bearer {session['access_token']}"}
