"""`supalite serve --workers 2` over the embedded database: every worker opens its own pools
(sized so that workers x pools fit the cluster's max_connections) and answers REST."""

from __future__ import annotations

import httpx

from tests import harness


def test_two_workers_on_the_embedded_database() -> None:
    server = harness.start_server(None, args=["--workers", "2"], extra_env={"SUPALITE_DB_POOL_SIZE": "4"})
    try:
        headers = {"apikey": server.anon_key}
        statuses = set()
        for _ in range(30):  # a fresh connection each: the kernel spreads them over both workers
            with httpx.Client(headers=headers, timeout=30) as client:
                r = client.get(f"{server.url}/rest/v1/books?select=id&limit=1")
                statuses.add(r.status_code)
                assert r.headers["content-type"].startswith("application/json")
        assert statuses == {200}, server.log()
    finally:
        server.stop()
