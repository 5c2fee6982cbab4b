"""Applies the whole database side of a project: platform schema, alembic head, policies,
bucket declarations (`supalite migrate`, and `supalite serve` at start)."""

from __future__ import annotations

import logging
from pathlib import Path

import psycopg
from psycopg import sql

from server.core.config import ConfigError, Settings
from server.core.conninfo import api_conninfo, authenticator_password
from server.provision.bucket_declarations import load_bucket_declarations
from server.provision.connection import sqlalchemy_url
from server.provision.migrate import (
    MigrationError,
    apply_buckets,
    apply_platform_schema,
    apply_policies,
    ensure_authenticator_login,
    migration_lock,
)

log = logging.getLogger("supalite.migrate")


def run_alembic(owner_url: str, migrations_dir: Path) -> None:
    if not (migrations_dir / "env.py").is_file():
        return
    from alembic import command
    from alembic.config import Config
    from alembic.util.exc import CommandError

    cfg = Config()
    cfg.set_main_option("script_location", str(migrations_dir))
    cfg.attributes["sqlalchemy_url"] = sqlalchemy_url(owner_url)
    try:
        command.upgrade(cfg, "head")
    except CommandError as exc:
        raise MigrationError(f"alembic: {exc}") from None
    except Exception as exc:  # a failing revision: DBAPI errors carry the SQL problem
        origin = getattr(exc, "orig", None) or exc
        first = str(origin).strip().splitlines()[0] if str(origin).strip() else type(origin).__name__
        raise MigrationError(f"alembic upgrade failed: {first}") from None


def apply_app_settings(conn: psycopg.Connection, app_settings: dict[str, str]) -> None:
    """SUPALITE_APP_<NAME> -> `alter database <this one> set app.<name>`: the app's SQL reads
    it with current_setting('app.<name>', true); sessions opened afterwards see it."""
    if not app_settings:
        return
    row = conn.execute("select current_database()").fetchone()
    assert row is not None  # a select without FROM answers one row
    dbname = row[0]
    for name, value in sorted(app_settings.items()):
        conn.execute(sql.SQL("alter database {} set {} = {}").format(
            sql.Identifier(dbname), sql.Identifier("app", name), sql.Literal(value)))


def migrate(settings: Settings, owner_url: str, *, seed: bool = True, roles: bool = True) -> None:
    """`seed`/`roles`: a Supabase project's seed files and supabase/roles.sql on its first setup.
    Every step under one lock, so two replicas starting at once never run a revision twice."""
    with migration_lock(owner_url):
        _migrate_locked(settings, owner_url, seed=seed, roles=roles)


def _migrate_locked(settings: Settings, owner_url: str, *, seed: bool, roles: bool) -> None:
    from server.provision.supabase_project.apply import migrate_project

    project = settings.project_dir
    with psycopg.connect(owner_url, autocommit=True) as conn:
        applied = apply_platform_schema(conn)
        ensure_authenticator_login(conn, api_conninfo(settings, owner_url), authenticator_password(settings))
        apply_app_settings(conn, settings.app_settings)
    if applied:
        log.info("platform schema: applied %s", ", ".join(applied))
    run_alembic(owner_url, project / "migrations")
    with psycopg.connect(owner_url, autocommit=True) as conn:
        if apply_policies(conn, project / "policies"):
            log.info("policies applied")
        apply_buckets(conn, load_bucket_declarations(project / "storage" / "buckets.toml"))
    # A Supabase project folder (supabase/config.toml): its migrations, seeds and buckets.
    migrate_project(settings, owner_url, seed=seed, roles=roles)


def apply_policies_now(settings: Settings, owner_url: str) -> None:
    with migration_lock(owner_url), psycopg.connect(owner_url, autocommit=True) as conn:
        apply_policies(conn, settings.project_dir / "policies", force=True)


__all__ = ["ConfigError", "apply_app_settings", "apply_policies_now", "migrate", "run_alembic"]
