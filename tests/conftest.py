"""Fixtures: `owner_url` (the session's PostgreSQL), `database_url` (a migrated database of
this module's own), `settings`, and `live_server` (a running supalite on that database)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import harness


@pytest.fixture(scope="session")
def owner_url() -> Iterator[str]:
    yield from harness.session_cluster()


@pytest.fixture(scope="session")
def template_ready(owner_url: str) -> str:
    harness.build_template(owner_url)
    return owner_url


@pytest.fixture(scope="module")
def database_url(template_ready: str, request: pytest.FixtureRequest) -> Iterator[str]:
    name = harness.unique_name("t_" + request.module.__name__.rsplit(".", 1)[-1][:30])
    url = harness.create_database_from_template(template_ready, name)
    yield url
    harness.drop_database(template_ready, name)


@pytest.fixture(scope="module")
def settings(database_url: str):
    return harness.base_settings(database_url)


@pytest.fixture(scope="module")
def live_server(database_url: str) -> Iterator[harness.LiveServer]:
    server = harness.start_server(database_url, args=["--no-migrate"])
    yield server
    server.stop()
