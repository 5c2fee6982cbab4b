"""The REST tests' fixture schema: fixture.sql, then each area's fixture_<area>.sql in name
order, loaded once into a test database, then waited for until the server's schema cache has
it (the DDL event trigger reloads it)."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import psycopg

HERE = Path(__file__).parent
SQL_FILES = [HERE / "fixture.sql", *sorted(HERE.glob("fixture_*.sql"))]


def create_database(owner_url: str, name: str) -> str:
    """A fresh database with the platform schema (roles, auth.uid()...) and the fixture."""

    from server.core.conninfo import api_conninfo, authenticator_password
    from server.provision.migrate import apply_platform_schema, ensure_authenticator_login
    from server.provision.settings import load_settings
    from tests import harness

    url = harness.create_database(owner_url, name)
    settings = load_settings({"DATABASE_URL": url}, dotenv=None)
    with psycopg.connect(url, autocommit=True) as conn:
        apply_platform_schema(conn)
        ensure_authenticator_login(conn, api_conninfo(settings, url), authenticator_password(settings))
    load(url)
    return url


def load(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("select pg_advisory_lock(4242)")
        try:
            if conn.execute("select to_regclass('public.fx_books')").fetchone()[0] is None:
                # one transaction: the schema cache sees all of it or none of it
                conn.execute("\n".join(f.read_text() for f in SQL_FILES))
        finally:
            conn.execute("select pg_advisory_unlock(4242)")


def wait_visible(url: str, apikey: str, table: str = "fx_books", timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = httpx.get(f"{url}/rest/v1/{table}?limit=0", headers={"apikey": apikey})
        if r.status_code == 200:
            return
        time.sleep(0.05)
    raise RuntimeError(f"{table} never appeared in the schema cache")

