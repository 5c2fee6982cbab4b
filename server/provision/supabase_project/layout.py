"""Where things live in a Supabase CLI project: the folder holding `supabase/`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from server.core.config import ConfigError

SUPABASE_DIR = "supabase"


@dataclass(frozen=True)
class SupabaseProject:
    root: Path  # the folder holding supabase/ (the CLI's --workdir)

    @property
    def supabase_dir(self) -> Path:
        return self.root / SUPABASE_DIR

    @property
    def config_path(self) -> Path:
        return self.supabase_dir / "config.toml"

    @property
    def migrations_dir(self) -> Path:
        return self.supabase_dir / "migrations"

    @property
    def functions_dir(self) -> Path:
        return self.supabase_dir / "functions"

    @property
    def env_file(self) -> Path:
        """`supabase/.env`: values for `env(NAME)` in config.toml, as the CLI reads them."""
        return self.supabase_dir / ".env"

    @property
    def default_data_dir(self) -> Path:
        """The embedded cluster and stored objects of this project, beside its config."""
        return self.supabase_dir / ".supalite"

    def relative(self, path: Path) -> str:
        """`supabase/migrations/x.sql` for messages, as the CLI prints paths."""
        try:
            return str(path.relative_to(self.root))
        except ValueError:
            return str(path)


def find_project(project_dir: Path) -> SupabaseProject | None:
    """The project at `project_dir` when it holds `supabase/config.toml`, else None."""
    project = SupabaseProject(project_dir.resolve())
    return project if project.config_path.is_file() else None


def require_project(project_dir: Path, command: str) -> SupabaseProject:
    """The project at `project_dir`, or the one-line refusal of a command that needs one."""
    project = find_project(project_dir)
    if project is None:
        raise ConfigError(
            f"cannot find supabase/config.toml in {project_dir}: "
            f"run supalite {command} in a Supabase project folder or pass --workdir"
        )
    return project
