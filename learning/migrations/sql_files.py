"""Revisions keep their SQL in migrations/sql/<revision>.sql; this runs such a file on alembic's connection."""

from __future__ import annotations

from pathlib import Path

from alembic import op

SQL_DIR = Path(__file__).parent / "sql"


def run_sql_file(name: str) -> None:
    # The raw psycopg connection: bytes without parameters, so '%' and ':name' stay literal.
    driver = op.get_bind().connection.driver_connection
    driver.execute((SQL_DIR / name).read_bytes())
