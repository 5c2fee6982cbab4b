"""`[db.seed] sql_paths` (default `./seed.sql`): run as the Supabase CLI seeds a database.

Each glob is taken relative to `supabase/`, its matches sorted, duplicates dropped, in the
order the globs are declared; a glob matching nothing is reported with the CLI's warning.
Each file runs in one transaction with its row in `supabase_migrations.seed_files (path,
hash)`. Pending files only: a path recorded with the same sha256 is skipped, one whose text
changed gets its hash updated without running again (the CLI's "Updating seed hash").
`supalite seed` runs every file again.
"""

from __future__ import annotations

import glob
import hashlib
import posixpath
from dataclasses import dataclass
from pathlib import Path

import psycopg

from server.core.config import ConfigError
from server.provision.extensions import skipped_platform_extension
from server.provision.migrate import SqlFile, run_file
from server.provision.supabase_project.config_toml import ProjectConfig
from server.provision.supabase_project.layout import SUPABASE_DIR, SupabaseProject
from server.provision.supabase_project.migrations import read_sql, say

UPSERT_SEED_FILE = ("INSERT INTO supabase_migrations.seed_files(path, hash) VALUES(%s, %s) "
                    "ON CONFLICT (path) DO UPDATE SET hash = EXCLUDED.hash")
CUSTOM_ROLES = "roles.sql"  # supabase/roles.sql: cluster roles, run before the migrations


@dataclass(frozen=True)
class SeedFile:
    path: str  # as the CLI records it: relative to the project root, `supabase/seed.sql`
    text: str
    hash: str
    dirty: bool = False  # recorded with another hash: only the hash is updated


def seed_glob(project: SupabaseProject, pattern: str) -> tuple[str, list[str]]:
    """A sql_paths glob joined onto supabase/ as the CLI joins it, and its sorted matches.

    Absolute or leading `../` after the join: refused, as the CLI cannot open such a file
    (its fs.FS takes paths inside the project folder only); nothing outside it is run.
    """
    joined = posixpath.normpath(posixpath.join(SUPABASE_DIR, pattern))
    if posixpath.isabs(joined) or joined == ".." or joined.startswith("../"):
        raise ConfigError(f"[db.seed] sql_paths: {pattern} is outside the project folder {project.root}")
    return joined, sorted(glob.glob(joined, root_dir=project.root, include_hidden=True))


def seed_paths(project: SupabaseProject, patterns: list[str]) -> list[str]:
    """The files the globs match, relative to the project root, in the CLI's order."""
    found: list[str] = []
    for pattern in patterns:
        joined, matches = seed_glob(project, pattern)
        if not matches:
            say(f"WARN: no seed files matched pattern: {joined}")
        found += [m for m in matches if m not in found]
    return found


def load_seed(project: SupabaseProject, path: str) -> SeedFile:
    full = project.root / path
    if not full.is_file():
        raise ConfigError(f"seed path {path} is not a file")
    text = read_sql(project, full)
    return SeedFile(path, text, hashlib.sha256(text.encode()).hexdigest())


def pending_seeds(conn: psycopg.Connection, project: SupabaseProject, paths: list[str]) -> list[SeedFile]:
    """Files not recorded with their current hash (the CLI's GetPendingSeeds)."""
    applied: dict[str, str] = dict(conn.execute("SELECT path, hash FROM supabase_migrations.seed_files").fetchall())
    pending: list[SeedFile] = []
    for path in paths:
        seed = load_seed(project, path)
        if path in applied:
            if applied[path] == seed.hash:
                continue
            seed = SeedFile(seed.path, seed.text, seed.hash, dirty=True)
        pending.append(seed)
    return pending


def run_seeds(conn: psycopg.Connection, seeds: list[SeedFile]) -> None:
    for seed in seeds:
        say(f"{'Updating seed hash to' if seed.dirty else 'Seeding data from'} {seed.path}...")
        conn.execute("RESET ALL")
        with conn.transaction():
            if not seed.dirty:
                folder, name = posixpath.split(seed.path)
                run_file(conn, SqlFile(name, seed.text), folder, skip=skipped_platform_extension)
            conn.execute(UPSERT_SEED_FILE, [seed.path, seed.hash])


def seed_database(conn: psycopg.Connection, project: SupabaseProject, config: ProjectConfig,
                  *, again: bool = False) -> None:
    """Run the pending seed files (every one when `again`); nothing when [db.seed] is off."""
    if not config.seed_enabled:
        return
    paths = seed_paths(project, config.seed_paths)
    seeds = [load_seed(project, p) for p in paths] if again else pending_seeds(conn, project, paths)
    run_seeds(conn, seeds)


def seed_globals(conn: psycopg.Connection, project: SupabaseProject) -> None:
    """`supabase/roles.sql` when present: run (not recorded) before the migrations."""
    path: Path = project.supabase_dir / CUSTOM_ROLES
    if not path.is_file():
        return
    say(f"Seeding globals from {CUSTOM_ROLES}...")
    with conn.transaction():
        run_file(conn, SqlFile(CUSTOM_ROLES, read_sql(project, path)), SUPABASE_DIR)
