"""Which Edge Functions a project has: a folder under the functions folder per function, as
the Supabase CLI finds them (`supabase/functions/<name>/index.ts`), with the
`[functions.<name>]` keys of config.toml (verify_jwt, entrypoint, import_map, enabled)."""

from __future__ import annotations

import logging
import os
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.core.config import Settings

log = logging.getLogger("supalite.functions")

# The CLI's rule for function names (utils.FuncSlugPattern): a slug. Matched whole
# (fullmatch): Python's `$` also matches before a final newline, Go's does not.
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
# No folder can be named longer than this (NAME_MAX): such a name is served only when
# config.toml gives it an entrypoint elsewhere, and never looked up on disk otherwise.
FOLDER_NAME_MAX = 255
ENTRYPOINTS = ("index.ts", "index.js", "index.mts", "index.mjs", "index.tsx", "index.jsx")


@dataclass(frozen=True)
class FunctionSpec:
    name: str
    folder: Path
    entrypoint: Path
    verify_jwt: bool = True
    import_map: Path | None = None


def is_slug(name: str) -> bool:
    return NAME.fullmatch(name) is not None


def functions_dir(settings: Settings) -> Path:
    return settings.functions_dir or settings.project_dir / "supabase" / "functions"


def find(settings: Settings, name: str) -> FunctionSpec | None:
    """The function called `name`, or None: not a slug, no such folder, no entrypoint, or
    disabled. A name the file system refuses (too long, unreadable folder...) is None too:
    the edge runtime answers 404 for any name it does not serve, never 500."""
    if not is_slug(name):
        return None  # before any disk access: the name may be anything a client sent
    try:
        return _find(settings, name)
    except (OSError, RuntimeError) as exc:  # RuntimeError: Path.resolve's symlink loop
        log.warning("function %.80s: not found (%s)", name, exc.strerror if isinstance(exc, OSError) else exc)
        return None


def _find(settings: Settings, name: str) -> FunctionSpec | None:
    root = functions_dir(settings)
    folder = root / name
    keys = _config_keys(settings, name)
    if not keys.get("enabled", True):
        return None
    entrypoint = _resolve(root.parent, keys.get("entrypoint"))
    if entrypoint is None and len(os.fsencode(name)) <= FOLDER_NAME_MAX:
        entrypoint = next((folder / candidate for candidate in ENTRYPOINTS if (folder / candidate).is_file()), None)
    if entrypoint is None or not entrypoint.is_file():
        return None
    folder = entrypoint.parent  # an entrypoint config.toml names may live elsewhere
    import_map = _resolve(root.parent, keys.get("import_map"))
    if import_map is None and (folder / "deno.json").is_file():
        import_map = folder / "deno.json"
    verify_jwt = settings.functions_verify_jwt and bool(keys.get("verify_jwt", True))
    return FunctionSpec(name, folder, entrypoint, verify_jwt, import_map)


def _config_keys(settings: Settings, name: str) -> dict[str, Any]:
    """`[functions.<name>]` of supabase/config.toml (paths in it are relative to supabase/)."""
    section = _functions_tables(functions_dir(settings).parent / "config.toml").get(name, {})
    return section if isinstance(section, dict) else {}


_parsed: dict[Path, tuple[int, dict[str, Any]]] = {}  # config.toml -> (its mtime, its [functions])


def _functions_tables(config: Path) -> dict[str, Any]:
    """config.toml's [functions] table, parsed again only when the file changed (a call
    looks it up on every request)."""
    try:
        mtime = config.stat().st_mtime_ns
    except OSError:
        return {}
    cached = _parsed.get(config)
    if cached is not None and cached[0] == mtime:
        return cached[1]
    try:
        tables = tomllib.loads(config.read_text()).get("functions", {})
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        tables = {}
    _parsed[config] = (mtime, tables if isinstance(tables, dict) else {})
    return _parsed[config][1]


def _resolve(base: Path, value: object) -> Path | None:
    if not isinstance(value, str) or not value.strip():
        return None
    path = Path(value)
    return (path if path.is_absolute() else base / path).resolve()
