"""`supalite db reset`: the project's database recreated, as `supabase db reset` does.

The database is dropped (its other sessions ended) and created again under the same owner,
then set up as on a first start: platform schema, migrations, seed files, buckets and their
objects. The bytes of the old database's objects are removed from the storage backend, so
none is left without its row. Beside a running server the reset uses that server's cluster;
the server's pools drop the ended connections and open new ones by themselves. Cluster
roles survive a reset, so `supabase/roles.sql` is not run again.
"""

from __future__ import annotations

import asyncio
import logging
import os
import shutil
import time
from pathlib import Path

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from server.core.config import ConfigError, Settings
from server.core.jwt import service_role_key
from server.provision.supabase_project.migrations import say
from server.provision.supabase_project.process import health_answers, local_url

log = logging.getLogger("supalite.reset")

SCHEMA_CACHE_WAIT = 10.0  # seconds a running server gets to show the new schema

_STORED_KEYS = """
select bucket_id, name, version from storage.objects where version is not null
union
select bucket_id, name, version from storage.deleted_objects where version is not null
"""


def check_reset_allowed(settings: Settings) -> None:
    # server/provision/seeding.py's rule for demo data: a real JWT secret means a production server.
    if not (settings.uses_demo_secret or settings.dev):
        raise ConfigError("refusing to reset a production database (real JWT secret): db reset is for dev machines")


def stored_object_keys(conn: psycopg.Connection) -> list[str]:
    """Backend keys of every object version the database refers to."""
    from server.storage.paths import backend_key

    row = conn.execute("select to_regclass('storage.objects'), to_regclass('storage.deleted_objects')").fetchone()
    if row is None or row[0] is None or row[1] is None:
        return []
    return [backend_key(bucket, name, version) for bucket, name, version in conn.execute(_STORED_KEYS)]


def _first_line(exc: psycopg.Error) -> str:
    return (exc.diag.message_primary or str(exc)).strip().splitlines()[0]


def recreate_database(owner_url: str) -> list[str]:
    """Drop and create the URL's database with its owner; the object keys it held.

    Refused before anything is dropped when the URL's role could not create it again (an
    owner without CREATEDB may drop its database, not make it: the reset would lose it).
    """
    with psycopg.connect(owner_url, autocommit=True) as conn:
        row = conn.execute(
            """select current_database(), pg_get_userbyid(d.datdba), current_user,
                      r.rolsuper or (r.rolcreatedb and pg_has_role(d.datdba, 'member'))
               from pg_database d, pg_roles r where d.datname = current_database() and r.rolname = current_user"""
        ).fetchone()
        assert row is not None  # the database we are connected to, as the role we are
        dbname, owner, user, can_create = row
        if not can_create:
            needs = "CREATEDB" if user == owner else f"CREATEDB and membership in {owner}"
            raise ConfigError(f"cannot reset database {dbname}: role {user} could drop it but not create it again "
                              f"(it needs {needs}); grant it, or reset through a superuser's DATABASE_URL")
        keys = stored_object_keys(conn)
    last_error: psycopg.OperationalError | None = None
    for maintenance in ("postgres", "template1"):
        if maintenance == dbname:
            continue
        try:
            conn = psycopg.connect(make_conninfo(owner_url, dbname=maintenance), autocommit=True)
        except psycopg.OperationalError as exc:
            last_error = exc
            continue
        with conn:
            say("Recreating database...")
            try:
                conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(dbname)))
            except psycopg.Error as exc:
                raise ConfigError(f"cannot drop database {dbname}: {_first_line(exc)}") from None
            try:
                conn.execute(sql.SQL("create database {} owner {}").format(sql.Identifier(dbname), sql.Identifier(owner)))
            except psycopg.Error as exc:
                raise ConfigError(f"database {dbname} was dropped but not created again: {_first_line(exc)}") from None
        return keys
    reason = str(last_error).strip().splitlines()[-1] if last_error else "no maintenance database"
    raise ConfigError(f"cannot reach a maintenance database (postgres, template1) to recreate {dbname}: {reason}")


async def _delete_keys(settings: Settings, keys: list[str]) -> None:
    from server.storage.backends import make_backend

    backend = make_backend(settings)
    await backend.start()
    try:
        for key in keys:
            try:
                await backend.delete(key)
            except Exception as exc:  # one unreadable key must not stop the others
                log.warning("cannot remove stored object %s (%s)", key, exc)
    finally:
        await backend.close()


def remove_stored_objects(settings: Settings, keys: list[str]) -> None:
    """The old database's object bytes, and the file backend's unfinished resumable uploads."""
    if keys:
        asyncio.run(_delete_keys(settings, keys))
    if settings.storage_backend == "file":
        from server.storage.backends.file import RESUMABLE_DIR

        shutil.rmtree(settings.data_dir / "storage" / RESUMABLE_DIR, ignore_errors=True)


def _exposed_relations(conn: psycopg.Connection, schema: str) -> set[str]:
    rows = conn.execute(
        """select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
           where n.nspname = %s and c.relkind in ('r', 'p', 'v', 'm', 'f')
             and has_table_privilege('service_role', c.oid, 'select')""", [schema]).fetchall()
    return {name for (name,) in rows}


def _listed_relations(url: str, key: str) -> set[str] | None:
    try:
        response = httpx.get(url, headers={"apikey": key, "Authorization": f"Bearer {key}"}, timeout=2.0)
        paths = response.json().get("paths", {}) if response.status_code == 200 else {}
    except (httpx.HTTPError, ValueError, AttributeError):
        return None
    return {path.strip("/") for path in paths if path.count("/") == 1}


def wait_for_schema_cache(settings: Settings, owner_url: str, timeout: float = SCHEMA_CACHE_WAIT) -> None:
    """The CLI restarts its containers after a reset, so the first request sees the new schema.

    A running server here reloads its schema cache on the NOTIFY the migrations sent, a moment
    later: wait until its REST lists every relation of the first exposed schema (a few answers
    in a row, as several workers each hold a cache). Bounded: past the timeout it catches up alone.
    """
    if not health_answers(settings):
        return
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("notify pgrst, 'reload schema'")  # in case no DDL of the setup told it already
        expected = _exposed_relations(conn, settings.db_schemas[0])
    url, key = f"{local_url(settings)}/rest/v1/", service_role_key(settings)
    deadline, current = time.monotonic() + timeout, 0
    while time.monotonic() < deadline and current < max(settings.workers, 1) * 2:
        listed = _listed_relations(url, key)
        current = current + 1 if listed is not None and expected <= listed else 0
        if current == 0:
            time.sleep(0.05)


def git_branch(root: Path) -> str:
    """The branch the CLI names in its last line: GITHUB_HEAD_REF, the checkout's, else main."""
    if head_ref := os.environ.get("GITHUB_HEAD_REF"):
        return head_ref
    for folder in (root, *root.parents):
        dot_git = folder / ".git"
        try:
            if dot_git.is_file():  # a worktree: `gitdir: <path>`
                pointer = dot_git.read_text().strip().removeprefix("gitdir:").strip()
                dot_git = (folder / pointer).resolve()
            if dot_git.is_dir():
                head = (dot_git / "HEAD").read_text().strip()
                return head.removeprefix("ref: refs/heads/") if head.startswith("ref: refs/heads/") else "HEAD"
        except OSError:
            break
    return "main"
