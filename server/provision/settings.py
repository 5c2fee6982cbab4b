"""The settings a command runs with: a .env file overlaid by the process environment, over
the supabase/config.toml of the project at SUPALITE_PROJECT_DIR when there is one."""

from __future__ import annotations

import os
from pathlib import Path

from server.core.config import Settings, read_dotenv, settings_from_env
from server.provision.supabase_project.config_toml import project_settings_env


def load_settings(environ: dict[str, str] | None = None, dotenv: Path | None = Path(".env")) -> Settings:
    env = dict(read_dotenv(dotenv)) if dotenv else {}
    env.update(os.environ if environ is None else environ)
    return settings_from_env({**project_settings_env(env), **env})
