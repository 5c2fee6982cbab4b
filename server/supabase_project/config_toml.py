"""`supabase/config.toml` read as the Supabase CLI reads it, turned into supalite settings."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from server.supabase_project.layout import SupabaseProject


@dataclass(frozen=True)
class BucketConfig:
    """`[storage.buckets.<name>]`."""

    name: str
    public: bool = False
    file_size_limit: int | None = None  # bytes
    allowed_mime_types: list[str] | None = None
    objects_path: Path | None = None  # resolved against supabase/


@dataclass(frozen=True)
class ProjectConfig:
    project_id: str
    # Settings as environment-variable names (GOTRUE_SITE_URL, PGRST_DB_SCHEMAS, SUPALITE_PORT...):
    # load_settings layers them under the real environment.
    settings_env: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)  # one line per unsupported key
    buckets: list[BucketConfig] = field(default_factory=list)
    seed_enabled: bool = True
    seed_paths: list[str] = field(default_factory=lambda: ["./seed.sql"])  # globs, relative to supabase/
    migrations_enabled: bool = True
    major_version: int = 17
    api_port: int = 54321
    db_port: int = 54322


def read_project_config(project: SupabaseProject) -> ProjectConfig:
    """Parse config.toml; ConfigError (one line, naming the key) for what cannot be run."""
    raise NotImplementedError
