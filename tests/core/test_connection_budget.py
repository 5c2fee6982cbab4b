"""Connections per server process: one pool per role, one LISTEN connection, the watchdog.

A small pool (SUPALITE_DB_POOL_SIZE=4) and bursts of requests to every service fill the
pools; the census attributes every backend of the database to the server's process.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from psycopg.conninfo import conninfo_to_dict

from server.core.listener import LISTENER_NAME
from tests import harness
from tests.core.measure_connections import measure

POOL_SIZE = 4
ADMIN_SIZE = max(2, POOL_SIZE // 2)


@pytest.fixture(scope="module")
def figures(database_url: str, owner_url: str) -> Iterator[dict[str, Any]]:
    server = harness.start_server(database_url, args=["--no-migrate"],
                                  extra_env={"SUPALITE_DB_POOL_SIZE": str(POOL_SIZE)})
    try:
        yield asyncio.run(measure(server, owner_url, str(conninfo_to_dict(database_url)["dbname"])))
    finally:
        server.stop()


def test_one_listen_connection_and_one_watchdog(figures: dict[str, Any]) -> None:
    for moment in ("at rest", "peak", "after"):
        kinds = figures[moment]["kinds"]
        assert kinds.get(f"postgres / {LISTENER_NAME}") == 1, kinds
        assert kinds.get("postgres / supalite watchdog") == 1, kinds


def test_each_pool_stays_within_its_size(figures: dict[str, Any]) -> None:
    kinds = figures["peak"]["kinds"]
    assert kinds.get("authenticator / supalite api", 0) <= POOL_SIZE, kinds
    assert kinds.get("postgres / supalite admin", 0) <= ADMIN_SIZE, kinds


def test_every_connection_is_one_of_the_pools_the_listener_or_the_watchdog(figures: dict[str, Any]) -> None:
    peak = figures["peak"]
    assert peak["total"] <= POOL_SIZE + ADMIN_SIZE + 2, peak["kinds"]
    assert set(peak["kinds"]) <= {"authenticator / supalite api", "postgres / supalite admin",
                                  f"postgres / {LISTENER_NAME}", "postgres / supalite watchdog"}, peak["kinds"]
