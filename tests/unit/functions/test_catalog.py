"""Which functions a project has, and config.toml's keys for them (server/functions/catalog.py)."""

from __future__ import annotations

import os
from pathlib import Path

from server.core.config import Settings
from server.functions.catalog import find


def project(tmp_path: Path, files: dict[str, str], config: str = "") -> Settings:
    for name, text in files.items():
        path = tmp_path / "supabase" / "functions" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    if config:
        (tmp_path / "supabase" / "config.toml").write_text(config)
    return Settings(project_dir=tmp_path)


def test_a_folder_with_an_entrypoint_is_a_function(tmp_path: Path) -> None:
    settings = project(tmp_path, {"hello/index.ts": "", "plain/index.js": "", "empty/README.md": ""})
    hello = find(settings, "hello")
    assert hello is not None and hello.entrypoint == tmp_path / "supabase/functions/hello/index.ts"
    assert hello.verify_jwt and hello.import_map is None
    assert find(settings, "plain") is not None
    assert find(settings, "empty") is None and find(settings, "absent") is None


def test_names_are_the_cli_s_slugs(tmp_path: Path) -> None:
    settings = project(tmp_path, {"_shared/index.ts": "", "ok-name_2/index.ts": ""})
    assert find(settings, "ok-name_2") is not None
    for name in ("_shared", "..", ".", "", "a/b", "2fast", "has space"):
        assert find(settings, name) is None, name


def test_config_toml_keys(tmp_path: Path) -> None:
    settings = project(tmp_path, {"open/index.ts": "", "off/index.ts": "", "mapped/index.ts": "",
                                  "elsewhere/main.ts": "", "own/index.ts": "", "own/deno.json": "{}"}, config="""
[functions.open]
verify_jwt = false
[functions.off]
enabled = false
[functions.mapped]
import_map = "./functions/import_map.json"
[functions.moved]
entrypoint = "./functions/elsewhere/main.ts"
""")
    supabase = tmp_path / "supabase"
    assert find(settings, "open").verify_jwt is False
    assert find(settings, "off") is None
    assert find(settings, "mapped").import_map == supabase / "functions/import_map.json"
    moved = find(settings, "moved")
    assert moved is not None and moved.entrypoint == supabase / "functions/elsewhere/main.ts"
    assert moved.folder == supabase / "functions/elsewhere"
    assert find(settings, "own").import_map == supabase / "functions/own/deno.json"
    assert find(settings.with_overrides(functions_verify_jwt=False), "own").verify_jwt is False


def test_an_edited_config_toml_is_read_again(tmp_path: Path) -> None:
    settings = project(tmp_path, {"hello/index.ts": ""}, config="[functions.hello]\nverify_jwt = false\n")
    assert find(settings, "hello").verify_jwt is False
    config = tmp_path / "supabase" / "config.toml"
    config.write_text("[functions.hello]\nverify_jwt = true\n")
    later = config.stat().st_mtime_ns + 1_000_000
    os.utime(config, ns=(later, later))
    assert find(settings, "hello").verify_jwt is True


def test_a_broken_config_toml_leaves_the_defaults(tmp_path: Path) -> None:
    settings = project(tmp_path, {"hello/index.ts": ""}, config="[functions.hello\n")
    assert find(settings, "hello").verify_jwt is True
