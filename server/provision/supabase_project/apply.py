"""A project's database side, in the order `supabase start` sets up a new database:
`supabase/roles.sql`, migrations, seed files, buckets and their objects.

Migrations are applied on every start (a version recorded is never run again). The rest is
a first setup's: it runs when this migrator creates `supabase_migrations` (a new or reset
database), and a `pending` mark in supalite.state, written in the same transaction and
cleared once everything is done, makes an interrupted setup finish on the next start
(seed files already recorded are not run twice; uploads are upserts). A database the CLI
made (its schema there, no mark) is never seeded again.
"""

from __future__ import annotations

import psycopg

from server.core.config import Settings
from server.provision.migrate import migration_lock, read_state, write_state
from server.provision.supabase_project.buckets import upload_bucket_objects, upsert_buckets
from server.provision.supabase_project.config_toml import ProjectConfig, read_project_config
from server.provision.supabase_project.layout import SupabaseProject, find_project
from server.provision.supabase_project.migrations import apply_migrations, ensure_history
from server.provision.supabase_project.seed import seed_database, seed_globals

SETUP_STATE = "supabase_project_setup"


def _setup_pending(conn: psycopg.Connection) -> bool:
    with conn.transaction():
        if ensure_history(conn):
            write_state(conn, SETUP_STATE, "pending")
    return read_state(conn, SETUP_STATE) == "pending"


def apply_project(settings: Settings, owner_url: str, project: SupabaseProject, config: ProjectConfig,
                  *, seed: bool = True, roles: bool = True) -> bool:
    """Migrate, and on a first setup seed and upload; True when it was a first setup.
    The caller holds the migration lock (server/provision/project.py migrate)."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        first = _setup_pending(conn)
        if first and roles:
            seed_globals(conn, project)
        if config.migrations_enabled:
            apply_migrations(conn, project)
        if first and seed:
            seed_database(conn, project, config)
        upsert_buckets(conn, config.buckets, verbose=first)
        if first:
            upload_bucket_objects(settings, owner_url, project, config.buckets)
            write_state(conn, SETUP_STATE, "done")
    return first


def migrate_project(settings: Settings, owner_url: str, *, seed: bool = True, roles: bool = True) -> None:
    """server/provision/project.py's hook: nothing outside a Supabase project folder."""
    project = find_project(settings.project_dir)
    if project is not None:
        apply_project(settings, owner_url, project, read_project_config(project), seed=seed, roles=roles)


def seed_project(settings: Settings, owner_url: str) -> bool:
    """`supalite seed` in a project: every seed file again, buckets and objects; False elsewhere."""
    project = find_project(settings.project_dir)
    if project is None:
        return False
    config = read_project_config(project)
    with migration_lock(owner_url), psycopg.connect(owner_url, autocommit=True) as conn:
        ensure_history(conn)
        seed_database(conn, project, config, again=True)
        upsert_buckets(conn, config.buckets, verbose=True)
        upload_bucket_objects(settings, owner_url, project, config.buckets)
    return True
