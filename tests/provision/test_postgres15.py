"""The same platform on Debian's PostgreSQL 15 (started here in a temp dir when installed)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest

from server.core.conninfo import api_conninfo
from server.core.pool import make_pool
from server.core.request_context import RequestContext, request_transaction
from server.provision.embedded import EmbeddedPostgres
from server.provision.project import migrate
from tests import harness

PG15 = Path("/usr/lib/postgresql/15/bin")

pytestmark = pytest.mark.skipif(
    not (PG15 / "postgres").exists(),
    reason="Debian's postgresql-15 is not installed (apt-get install postgresql-15)",
)


@pytest.fixture(scope="module")
def pg15_url():
    pg = EmbeddedPostgres(harness.scratch_dir("supalite-pg15-") / "data", port=0, fast_unsafe=True, binaries=PG15)
    url = pg.start()
    try:
        yield url
    finally:
        pg.stop()


def test_platform_schema_and_context_on_postgres_15(pg15_url: str) -> None:
    with psycopg.connect(pg15_url) as conn:
        assert conn.info.server_version // 10000 == 15
    settings = harness.base_settings(pg15_url)
    migrate(settings, pg15_url)
    migrate(settings, pg15_url)
    sub = str(uuid.uuid4())

    async def uid() -> object:
        pool = make_pool(api_conninfo(settings, pg15_url), 1, "pg15")
        await pool.open()
        try:
            async with request_transaction(pool, RequestContext("authenticated", {"sub": sub})) as conn:
                return await (await conn.execute("select auth.uid()::text")).fetchone()
        finally:
            await pool.close()

    assert asyncio.run(uid()) == (sub,)


def test_server_runs_on_postgres_15(pg15_url: str) -> None:
    server = harness.start_server(pg15_url)
    try:
        assert httpx.get(f"{server.url}/health").json()["status"] == "ok"
        assert httpx.get(f"{server.url}/auth/v1/health").status_code == 200
    finally:
        server.stop()
