"""`supalite gen types typescript`: the output of upstream's generator, and the site's
generated types kept in step with its migrations.

fixture.expected.ts is what the Supabase CLI's generator (@supabase/postgres-meta 0.99.0,
one-to-one detection on, PostgrestVersion "12") prints for fixture.sql.
"""

from __future__ import annotations

import difflib
import json
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from server.typegen import generate_typescript
from tests import harness

HERE = Path(__file__).parent
FIXTURE_SQL = HERE / "fixture.sql"
EXPECTED = HERE / "fixture.expected.ts"
SITE_TYPES = harness.APP / "web" / "src" / "types" / "database.ts"
WEB = harness.APP / "web"
REGENERATE = (
    "learning/web/src/types/database.ts is stale: regenerate it from the migrated database with\n"
    "  .venv/bin/supalite --workdir learning migrate\n"
    "  .venv/bin/supalite gen types typescript > learning/web/src/types/database.ts"
)


def _diff(expected: str, actual: str, name: str) -> str:
    lines = difflib.unified_diff(expected.splitlines(), actual.splitlines(), name, "generated", lineterm="", n=2)
    return "\n".join(list(lines)[:80])


@pytest.fixture(scope="module")
def fixture_db(owner_url: str) -> Iterator[str]:
    name = harness.unique_name("t_typegen")
    url = harness.create_database(owner_url, name)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(FIXTURE_SQL.read_text())
    yield url
    harness.drop_database(owner_url, name)


def test_every_mapping_prints_as_upstream(fixture_db: str) -> None:
    expected = EXPECTED.read_text()
    actual = generate_typescript(fixture_db)
    assert actual == expected, _diff(expected, actual, EXPECTED.name)


def test_output_is_stable(fixture_db: str) -> None:
    assert generate_typescript(fixture_db) == generate_typescript(fixture_db)
    assert generate_typescript(fixture_db, ["public", "public", "absent"]) == EXPECTED.read_text()


def test_site_types_are_up_to_date(database_url: str) -> None:
    expected = SITE_TYPES.read_text() if SITE_TYPES.exists() else ""
    actual = generate_typescript(database_url)
    assert actual == expected, REGENERATE + "\n" + _diff(expected, actual, "learning/web/src/types/database.ts")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([harness.SUPALITE, "gen", "types", "typescript", *args], check=False,
                          capture_output=True, text=True, timeout=60, cwd=str(harness.REPO))


def test_cli_prints_the_module(fixture_db: str) -> None:
    done = _cli("--db-url", fixture_db)
    assert done.returncode == 0, done.stderr
    assert done.stdout == EXPECTED.read_text()


def test_cli_schemas(fixture_db: str) -> None:
    done = _cli("--db-url", fixture_db, "--schema", "public", "--schema", "other")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # Schemas in name order; a foreign key into another schema is not a relationship.
    assert 0 < out.index("\n  other: {") < out.index("\n  public: {")
    assert "secret: { Args: Record<PropertyKey, never>; Returns: number }" in out
    assert '      mood: "calm"\n' in out
    assert 'referencedRelation: "books"' not in out[out.index("hidden: {"):out.index("\n  public: {")]
    # A column of an enum from a schema now included refers to it instead of spelling it out.
    assert 'mood: Database["other"]["Enums"]["mood"] | null' in out


def test_cli_hostile_schema_name_is_just_absent(fixture_db: str) -> None:
    done = _cli("--db-url", fixture_db, "--schema", "x'); drop table public.books; --")
    assert done.returncode == 0, done.stderr
    assert "Tables" not in done.stdout.split("export type Database")[1].split("type DatabaseWithoutInternals")[0]
    with psycopg.connect(fixture_db) as conn:
        assert conn.execute("select to_regclass('public.books') is not null").fetchone() == (True,)


def test_cli_unreachable_database() -> None:
    done = _cli("--db-url", "postgresql://nobody@127.0.0.1:1/none")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith("supalite: error: cannot read the database:")
    assert "Traceback" not in done.stderr


@pytest.mark.skipif(not (WEB / "node_modules" / ".bin" / "tsc").exists() or not shutil.which("node"),
                    reason="learning/web/node_modules not installed")
def test_supabase_js_types_calls_with_it(tmp_path: Path) -> None:
    """usage.ts holds calls that must compile and `@ts-expect-error` ones that must not."""
    config = {
        "compilerOptions": {
            "strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext",
            "moduleResolution": "bundler", "skipLibCheck": True, "types": [],
            "baseUrl": str(WEB), "paths": {"@supabase/supabase-js": ["node_modules/@supabase/supabase-js"]},
        },
        "files": [str(EXPECTED), str(HERE / "usage.ts")],
    }
    (tmp_path / "tsconfig.json").write_text(json.dumps(config))
    done = subprocess.run([str(WEB / "node_modules" / ".bin" / "tsc"), "-p", str(tmp_path / "tsconfig.json")],
                          check=False, capture_output=True, text=True, timeout=300, cwd=str(WEB))
    assert done.returncode == 0, done.stdout + done.stderr
