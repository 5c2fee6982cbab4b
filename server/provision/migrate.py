"""`supalite migrate`: platform schema, then alembic head, then policies, then buckets.

Every step is idempotent: platform files are recorded by version, alembic by revision,
policies by the hash of their text and of the schema versions they were applied to
(`policies apply` forces a re-run), buckets are upserts.
A failing step rolls back its own transaction, so the database stays as it was.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import psycopg
from psycopg import sql

from server.core.config import ConfigError
from server.core.sql_split import split_statements
from server.provision.extensions import created_extension, extension_failure

log = logging.getLogger("supalite.migrate")

# Each step alone, kept under MIGRATE_LOCK_KEY: a caller of these functions without it, or a
# replica of an older version during a rolling upgrade, still never runs a step twice at once.
_LOCK_KEY = 0x5350_4C54
# The whole `migrate` (server/provision/project.py), held on a connection of its own while the steps
# take _LOCK_KEY on theirs: a distinct key, or a step would wait on itself.
MIGRATE_LOCK_KEY = 0x5350_4C4D


@dataclass(frozen=True)
class SqlFile:
    name: str
    text: str


def platform_files() -> list[SqlFile]:
    folder = resources.files("server.provision.platform_schema")
    files = [SqlFile(p.name, p.read_text()) for p in folder.iterdir() if p.name.endswith(".sql")]
    return sorted(files, key=lambda f: f.name)


def project_sql_files(folder: Path) -> list[SqlFile]:
    if not folder.is_dir():
        return []
    return [SqlFile(p.name, p.read_text()) for p in sorted(folder.glob("*.sql"))]


class MigrationError(ConfigError):
    """A SQL file failed; the message names the file and the line."""


# Decides, before a statement runs, whether to skip it: the reason, logged, or None to run it.
SkipRule = Callable[[psycopg.Connection, str], str | None]


def run_file(conn: psycopg.Connection, file: SqlFile, label: str, *, skip: SkipRule | None = None) -> None:
    """Execute a file statement by statement, turning a failure into `label/file line N: message`."""
    for statement in split_statements(file.text):
        if skip is not None and (reason := skip(conn, statement.text)) is not None:
            log.warning("%s/%s line %d: %s", label, file.name, statement.line, reason)
            continue
        try:
            conn.execute(statement.text.encode())  # bytes, no parameters: '%' stays literal
        except psycopg.Error as exc:
            line = statement.line
            position = getattr(exc.diag, "statement_position", None)
            if position:
                line += statement.text[: int(position)].count("\n")
            first = (exc.diag.message_primary or str(exc)).splitlines()[0]
            extension = created_extension(statement.text)
            if extension is not None:  # which extension, which PostgreSQL, what to do
                first = extension_failure(extension, exc.sqlstate, first, conn.info.server_version)
            raise MigrationError(f"{label}/{file.name} line {line}: {first}") from None


def _ensure_bookkeeping(conn: psycopg.Connection) -> None:
    conn.execute(
        """
        create schema if not exists supalite;
        create table if not exists supalite.platform_migrations (
          version text primary key, checksum text not null, applied_at timestamptz not null default now());
        create table if not exists supalite.state (key text primary key, value text not null);
        """
    )


def authenticator_password_sql(password: str) -> sql.Composed:
    return sql.SQL("alter role authenticator with login password {}").format(sql.Literal(password))


def apply_platform_schema(conn: psycopg.Connection) -> list[str]:
    """Apply unapplied platform files in order; return the versions applied."""
    applied_now: list[str] = []
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [_LOCK_KEY])
        _ensure_bookkeeping(conn)
        done = {row[0] for row in conn.execute("select version from supalite.platform_migrations")}
        for file in platform_files():
            if file.name in done:
                continue
            run_file(conn, file, "server/provision/platform_schema")
            conn.execute(
                "insert into supalite.platform_migrations (version, checksum) values (%s, %s)",
                [file.name, hashlib.sha256(file.text.encode()).hexdigest()],
            )
            applied_now.append(file.name)
    return applied_now


def ensure_authenticator_login(conn: psycopg.Connection, api_conninfo: str, password: str) -> None:
    """Set the authenticator's password only when it does not already log in with it."""
    try:
        psycopg.connect(api_conninfo, connect_timeout=5).close()
    except psycopg.OperationalError:
        conn.execute(authenticator_password_sql(password))


def read_state(conn: psycopg.Connection, key: str) -> str | None:
    row = conn.execute("select value from supalite.state where key = %s", [key]).fetchone()
    return row[0] if row else None


def write_state(conn: psycopg.Connection, key: str, value: str) -> None:
    conn.execute(
        "insert into supalite.state (key, value) values (%s, %s) on conflict (key) do update set value = excluded.value",
        [key, value],
    )


def _schema_versions(conn: psycopg.Connection) -> list[str]:
    """The applied platform versions and the alembic head: what the policies' tables are made of."""
    versions = [f"platform:{name}:{checksum}" for name, checksum in conn.execute(
        "select version, checksum from supalite.platform_migrations order by version")]
    row = conn.execute("select to_regclass('supalite.alembic_version')").fetchone()
    if row is not None and row[0] is not None:
        versions += [f"alembic:{head}" for (head,) in conn.execute(
            "select version_num from supalite.alembic_version order by 1")]
    return versions


def policies_digest(files: list[SqlFile], schema_versions: list[str]) -> str:
    # Policies may name tables a newer platform or app migration adds or recreates (dropping
    # their policies): a migration changes the digest, so the policies are applied again.
    parts = [f"{f.name}\0{f.text}" for f in files] + ["\0schema"] + schema_versions
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def apply_policies(conn: psycopg.Connection, folder: Path, force: bool = False) -> bool:
    """Run every policies/*.sql in one transaction; skipped when neither the files nor the
    schema they apply to (platform versions, alembic head) changed, unless forced."""
    files = project_sql_files(folder)
    with conn.transaction():
        conn.execute("select pg_advisory_xact_lock(%s)", [_LOCK_KEY])
        _ensure_bookkeeping(conn)
        digest = policies_digest(files, _schema_versions(conn))
        if not force and read_state(conn, "policies_digest") == digest:
            return False
        for file in files:
            run_file(conn, file, folder.name)
        write_state(conn, "policies_digest", digest)
    return True


def apply_buckets(conn: psycopg.Connection, declarations: list[dict[str, Any]]) -> int:
    """Upsert declared buckets (id, public, file_size_limit, allowed_mime_types)."""
    with conn.transaction():
        for bucket in declarations:
            conn.execute(
                """
                insert into storage.buckets (id, name, public, file_size_limit, allowed_mime_types)
                values (%(id)s, %(id)s, %(public)s, %(file_size_limit)s, %(allowed_mime_types)s)
                on conflict (id) do update set
                  public = excluded.public,
                  file_size_limit = excluded.file_size_limit,
                  allowed_mime_types = excluded.allowed_mime_types,
                  updated_at = case
                    when (storage.buckets.public, storage.buckets.file_size_limit, storage.buckets.allowed_mime_types)
                      is distinct from (excluded.public, excluded.file_size_limit, excluded.allowed_mime_types)
                    then now() else storage.buckets.updated_at end
                """,
                bucket,
            )
    return len(declarations)


# A migrator holding the lock this long is stuck (a revision waiting on a lock a running server
# holds, a frozen host): the next replica says so and exits instead of hanging its start.
LOCK_WAIT_SECONDS = 300


def _lock_holder(conn: psycopg.Connection) -> int | None:
    """The backend pid holding MIGRATE_LOCK_KEY in this database (a bigint key is classid:objid)."""
    row = conn.execute(
        "select pid from pg_locks where locktype = 'advisory' and granted and objsubid = 1"
        " and database = (select oid from pg_database where datname = current_database())"
        " and classid = (%(key)s::bigint >> 32)::oid and objid = (%(key)s::bigint & 4294967295)::oid",
        {"key": MIGRATE_LOCK_KEY}).fetchone()
    return row[0] if row else None


@contextmanager
def migration_lock(owner_url: str, wait_seconds: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold MIGRATE_LOCK_KEY for the block: replicas starting together migrate one after the
    other, and the later ones find nothing left to do.

    A session lock on an idle autocommit connection of its own, released when the block ends
    or the process dies. Not a transaction left open: its snapshot could make a revision's
    `create index concurrently` wait for it forever. So the URL must reach PostgreSQL
    directly or through a session-mode pooler, as LISTEN does."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        row = conn.execute("select pg_try_advisory_lock(%s)", [MIGRATE_LOCK_KEY]).fetchone()
        if not (row and row[0]):
            holder = _lock_holder(conn)
            log.info("waiting for another migrator (backend pid %s) to finish", holder)
            conn.execute("select set_config('lock_timeout', %s, false)", [f"{int(wait_seconds * 1000)}ms"])
            try:
                conn.execute("select pg_advisory_lock(%s)", [MIGRATE_LOCK_KEY])
            except psycopg.errors.LockNotAvailable:
                raise MigrationError(
                    f"another migrator (backend pid {holder}) has held the migration lock for over"
                    f" {wait_seconds:g} s; if it is stuck, end it with select pg_terminate_backend({holder})"
                ) from None
        yield  # closing the connection releases the lock, on any error too
