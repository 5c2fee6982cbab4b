"""`supabase/migrations/<version>_<name>.sql`, applied and recorded as the Supabase CLI does.

Each file runs statement by statement in one transaction together with its row in
`supabase_migrations.schema_migrations (version, name, statements)`: the CLI's table, with
its values, so a project moves between `supabase start` and supalite with its history.
Files are taken in file-name order (the CLI's `fs.ReadDir` order); a name that does not
match the pattern is skipped with the CLI's message; a version already recorded is never
run again. One migrator at a time: a session advisory lock is held for the whole run.

`supalite migration new <name>` and `supalite migration list` print what the CLI prints.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import psycopg

from server.core.config import ConfigError
from server.core.sql_split import split_statements
from server.provision.extensions import skipped_platform_extension
from server.provision.migrate import SqlFile, run_file
from server.provision.supabase_project.layout import SupabaseProject

# The CLI's pattern (pkg/migration/file.go): digits, underscore, any name, `.sql`.
MIGRATION_FILE = re.compile(r"^([0-9]+)_(.*)\.sql$")
# `<timestamp>_init.sql` first in the folder, older than 2021-12-09: made by old CLIs, skipped.
_OLD_INIT = re.compile(r"([0-9]{14})_init\.sql")
_OLD_INIT_BEFORE = 20211209000000

# The CLI's bookkeeping DDL (pkg/migration/history.go), kept statement for statement.
HISTORY_DDL = (
    "CREATE SCHEMA IF NOT EXISTS supabase_migrations",
    "CREATE TABLE IF NOT EXISTS supabase_migrations.schema_migrations (version text NOT NULL PRIMARY KEY)",
    "ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS statements text[]",
    "ALTER TABLE supabase_migrations.schema_migrations ADD COLUMN IF NOT EXISTS name text",
    "CREATE TABLE IF NOT EXISTS supabase_migrations.seed_files (path text NOT NULL PRIMARY KEY, hash text NOT NULL)",
)
INSERT_VERSION = "INSERT INTO supabase_migrations.schema_migrations(version, name, statements) VALUES(%s, %s, %s)"


def say(line: str) -> None:
    """Progress lines go to stderr, as the CLI writes them."""
    print(line, file=sys.stderr, flush=True)


@dataclass(frozen=True)
class LocalMigration:
    path: Path
    version: str
    name: str


def local_migrations(project: SupabaseProject) -> list[LocalMigration]:
    """The folder's migrations in the CLI's order; other files are named and skipped."""
    folder = project.migrations_dir
    if not folder.is_dir():
        return []
    found: list[LocalMigration] = []
    for index, path in enumerate(sorted(folder.iterdir(), key=lambda p: p.name)):
        filename = path.name
        old_init = _OLD_INIT.fullmatch(filename)
        if index == 0 and old_init and int(old_init.group(1)) < _OLD_INIT_BEFORE:
            say(f'Skipping migration {filename}... (replace "init" with a different file name to apply this migration)')
            continue
        match = MIGRATION_FILE.match(filename)
        if match is None:
            say(f'Skipping migration {filename}... (file name must match pattern "<timestamp>_name.sql")')
            continue
        if not path.is_file():
            raise ConfigError(f"{project.relative(path)} is not a file")
        found.append(LocalMigration(path, match.group(1), match.group(2)))
    return found


def read_sql(project: SupabaseProject, path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")  # no newline translation: hashed as the CLI hashes bytes
    except UnicodeDecodeError:
        raise ConfigError(f"{project.relative(path)} is not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(f"cannot read {project.relative(path)}: {exc.strerror}") from None


def recorded_statements(text: str) -> list[str]:
    """The statements as the CLI records them: each without its `;`, trimmed."""
    return [s.text.rstrip(";").strip() for s in split_statements(text)]


def ensure_history(conn: psycopg.Connection) -> bool:
    """Create the CLI's tables when missing; True when the schema did not exist before."""
    with conn.transaction():
        conn.execute("set local lock_timeout = '4s'")
        row = conn.execute("select to_regnamespace('supabase_migrations') is null").fetchone()
        created = bool(row and row[0])
        for statement in HISTORY_DDL:
            conn.execute(statement)
    return created


def applied_versions(conn: psycopg.Connection) -> list[str]:
    """Recorded versions in order; none when the history table does not exist."""
    row = conn.execute("select to_regclass('supabase_migrations.schema_migrations')").fetchone()
    if row is None or row[0] is None:
        return []
    return [v for (v,) in conn.execute("SELECT version FROM supabase_migrations.schema_migrations ORDER BY version")]


def apply_migrations(conn: psycopg.Connection, project: SupabaseProject) -> list[str]:
    """Run every local migration whose version is not recorded; the file names applied.

    The caller holds the migration lock (server/provision/project.py) and has created the history tables.
    """
    done = set(applied_versions(conn))
    label = project.relative(project.migrations_dir)
    applied: list[str] = []
    for migration in local_migrations(project):
        if migration.version in done:
            continue
        text = read_sql(project, migration.path)
        say(f"Applying migration {migration.path.name}...")
        # A file may change session settings (pg_dump's set_config('search_path', '', false)):
        # each one starts from the defaults, as the CLI's RESET ALL gives it.
        conn.execute("RESET ALL")
        with conn.transaction():
            run_file(conn, SqlFile(migration.path.name, text), label, skip=skipped_platform_extension)
            conn.execute(INSERT_VERSION, [migration.version, migration.name, recorded_statements(text)])
        done.add(migration.version)
        applied.append(migration.path.name)
    return applied


# -- supalite migration new -----------------------------------------------------------------

_MAX_FILE_NAME = 255


def migration_file_name(name: str, now: datetime) -> str:
    """`<UTC timestamp>_<name>.sql`, the name refused when it could leave the folder."""
    if not name.strip():
        raise ConfigError("a migration needs a name: supalite migration new <name>")
    if "/" in name or "\\" in name or any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
        raise ConfigError(f"invalid migration name {name!r}: no path separators or control characters")
    file_name = f"{now.strftime('%Y%m%d%H%M%S')}_{name}.sql"
    if len(file_name.encode()) > _MAX_FILE_NAME:
        raise ConfigError(f"migration name too long ({len(name)} characters)")
    return file_name


# -- supalite migration list ----------------------------------------------------------------


def format_version_time(version: str) -> str:
    """`20240102030405` -> `2024-01-02 03:04:05`; other versions as they are (the CLI's)."""
    try:
        return datetime.strptime(version, "%Y%m%d%H%M%S").strftime("%Y-%m-%d %H:%M:%S")
    except ValueError:
        return version


def migration_rows(local: list[str], remote: list[str]) -> list[tuple[str, str, str]]:
    """Local and remote versions merged top to bottom by timestamp, as the CLI's makeTable."""
    rows: list[tuple[str, str, str]] = []
    i = j = 0
    huge = sys.maxsize
    while i < len(remote) or j < len(local):
        if i < len(remote) and not remote[i].isdigit():
            i += 1
            continue
        if j < len(local) and not local[j].isdigit():
            j += 1
            continue
        remote_ts = int(remote[i]) if i < len(remote) else huge
        local_ts = int(local[j]) if j < len(local) else huge
        if local_ts < remote_ts:
            rows.append((local[j], "", format_version_time(local[j])))
            j += 1
        elif remote_ts < local_ts:
            rows.append(("", remote[i], format_version_time(remote[i])))
            i += 1
        else:
            rows.append((local[j], remote[i], format_version_time(remote[i])))
            i += 1
            j += 1
    return rows


def render_table(rows: list[tuple[str, str, str]]) -> str:
    """The table as the CLI's markdown renderer prints it (two-space margin, padded cells)."""
    header = ("Local", "Remote", "Time (UTC)")
    widths = [max([len(header[c])] + [len(row[c]) for row in rows]) for c in range(3)]

    def line(cells: tuple[str, str, str]) -> str:
        return "  " + "|".join(f" {cell.ljust(width)} " for cell, width in zip(cells, widths, strict=True))

    lines = ["", "  ", line(header), "  " + "|".join("-" * (width + 2) for width in widths)]
    lines += [line(row) for row in rows]
    return "\n".join(lines) + "\n"
