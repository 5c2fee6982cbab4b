"""A Supabase project folder (tests/provision/supabase_project/sample, written as `supabase init` and a user
leave it) run end to end as with the Supabase CLI: `supalite start --workdir D`, `status -o env`,
the real supabase-js against what its config.toml, migrations, seed and bucket declare
(tests/js/supabase-project.suite.mjs), `gen types typescript --local` compiled with tsc,
`migration list`, `db reset` under a running server, `stop`."""

from __future__ import annotations

import json
import re
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import jwt
import psycopg
import pytest

from tests import harness
from tests.js.node_suite import needs_node, run_node_suite
from tests.provision.supabase_project.projects import Project, parse_env_output, started_project

SAMPLE = Path(__file__).parent / "sample"
TYPES_USAGE = Path(__file__).parent / "types_usage.ts"
WEB = harness.APP / "web"
TSC = WEB / "node_modules" / ".bin" / "tsc"
MIGRATIONS = sorted(p.name.split("_", 1)[0] for p in (SAMPLE / "supabase" / "migrations").glob("*.sql"))
ADA = {"email": "ada@example.com", "password": "ada-password"}
NOTE_TAGS = "alter table public.notes add column tags text[] not null default '{}';\n"
STATUS_KEYS = {"API_URL", "DB_URL", "ANON_KEY", "SERVICE_ROLE_KEY", "JWT_SECRET"}


@pytest.fixture(scope="module")
def project() -> Iterator[Project]:
    with started_project(SAMPLE, "sample") as (started, start):
        # Supabase's own extensions the first migration creates: said at start, their statements skipped.
        for name in ("pg_graphql", "supabase_vault"):
            assert (f'supalite: warning: supabase/migrations/20240101120000_profiles_and_notes.sql creates extension '
                    f'"{name}", Supabase\'s own') in start.stderr, start.stderr
        yield started


def test_status_env_names_the_running_project(project: Project) -> None:
    status, env = project.status, project.env
    assert status.keys() >= STATUS_KEYS, status
    names = [line.split("=", 1)[0] for line in project.ok("status", "-o", "env").splitlines() if line.strip()]
    assert names == sorted(names), "godotenv.Marshal prints the variables sorted"
    # In the project's folder, without --workdir, as most users run it.
    here = subprocess.run([harness.SUPALITE, "status", "-o", "env"], env=env, cwd=str(project.workdir),
                          capture_output=True, text=True, timeout=60, check=False)
    assert here.returncode == 0 and parse_env_output(here.stdout) == status, here.stdout + here.stderr
    assert status["API_URL"] == f"http://127.0.0.1:{env['SUPALITE_PORT']}"
    assert httpx.get(f"{status['API_URL']}/rest/v1/", headers={"apikey": status["ANON_KEY"]}).status_code == 200
    for key, role in (("ANON_KEY", "anon"), ("SERVICE_ROLE_KEY", "service_role")):
        claims = jwt.decode(status[key], status["JWT_SECRET"], algorithms=["HS256"], options={"verify_aud": False})
        assert claims["role"] == role
    with psycopg.connect(status["DB_URL"], connect_timeout=5) as conn:
        assert conn.info.port == int(env["SUPALITE_DB_PORT"])
        assert conn.execute("select count(*) from public.notes").fetchone() == (62,)


@needs_node
def test_supabase_js_sees_the_project_settings(project: Project) -> None:
    # Duck-typed for run_node_suite: the URL and keys come from `status -o env`, not from settings.
    counts = run_node_suite("supabase-project.suite.mjs", project, SAMPLE_DIR=str(project.workdir))  # type: ignore[arg-type]
    assert counts["pass"] == 11 and counts["fail"] == 0 and counts["skipped"] == 0, counts


def _tsc(folder: Path, usage: str) -> subprocess.CompletedProcess[str]:
    """tsc (web's) on database.types.ts and `usage` in `folder`, supabase-js resolved from learning/web/."""
    (folder / "types_usage.ts").write_text(usage)
    config = {
        "compilerOptions": {
            "strict": True, "noEmit": True, "target": "ES2022", "module": "ESNext",
            "moduleResolution": "bundler", "skipLibCheck": True, "types": [],
            "baseUrl": str(WEB), "paths": {"@supabase/supabase-js": ["node_modules/@supabase/supabase-js"]},
        },
        "files": [str(folder / "database.types.ts"), str(folder / "types_usage.ts")],
    }
    (folder / "tsconfig.json").write_text(json.dumps(config))
    return subprocess.run([str(TSC), "-p", str(folder / "tsconfig.json")], check=False, capture_output=True, text=True,
                          timeout=300, cwd=str(WEB))


@pytest.fixture(scope="module")
def generated_types(project: Project) -> Iterator[Path]:
    """`supalite gen types typescript --local > database.types.ts`, as the Supabase docs write it."""
    folder = harness.scratch_dir("supalite-sample-types-")
    (folder / "database.types.ts").write_text(project.ok("gen", "types", "typescript", "--local"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


needs_tsc = pytest.mark.skipif(not TSC.exists() or not shutil.which("node"), reason="learning/web/node_modules not installed")


@needs_tsc
def test_generated_types_compile_with_supabase_js(generated_types: Path) -> None:
    types = (generated_types / "database.types.ts").read_text()
    assert "export type Database = {" in types
    for name in ("notes: {", "profiles: {", "public_notes: {", "note_totals: {", "search_notes: {"):
        assert name in types, f"{name} missing from the generated types"
    done = _tsc(generated_types, TYPES_USAGE.read_text())
    assert done.returncode == 0, done.stdout + done.stderr


@needs_tsc
def test_generated_types_refuse_a_wrong_column(generated_types: Path) -> None:
    """Without its `@ts-expect-error` comments the usage file fails on each line they marked."""
    lines = TYPES_USAGE.read_text().splitlines()
    marked = [number + 2 for number, line in enumerate(lines) if line.strip().startswith("// @ts-expect-error")]
    assert len(marked) >= 4
    stripped = "\n".join("" if line.strip().startswith("// @ts-expect-error") else line for line in lines) + "\n"
    done = _tsc(generated_types, stripped)
    assert done.returncode != 0
    failing = {int(n) for n in re.findall(r"types_usage\.ts\((\d+),\d+\): error", done.stdout)}
    assert failing == set(marked), done.stdout
    misspelt = next(number + 1 for number, line in enumerate(lines) if "titel" in line)
    assert misspelt in failing


def test_migration_list_shows_every_migration_applied(project: Project) -> None:
    listing = project.ok("migration", "list")
    for version in MIGRATIONS:
        rows = [line for line in listing.splitlines() if version in line]
        assert len(rows) == 1 and rows[0].count(version) == 2, f"{version} not local and remote:\n{listing}"
    with psycopg.connect(project.database_url) as conn:
        applied = conn.execute("select version from supabase_migrations.schema_migrations order by version").fetchall()
    assert [row[0] for row in applied] == MIGRATIONS


def _sign_in(project: Project) -> httpx.Response:
    return httpx.post(f"{project.url}/auth/v1/token?grant_type=password", headers={"apikey": project.anon_key},
                      json=ADA, timeout=30)


def test_db_reset_restores_the_seed_under_the_running_server(project: Project) -> None:
    service = {"apikey": project.service_key, "Authorization": f"Bearer {project.service_key}"}
    rest = f"{project.url}/rest/v1"
    added = httpx.post(f"{rest}/notes", headers=service | {"Prefer": "return=representation"},
                       json={"title": "Written after the seed", "owner_id": "ada00000-0000-4000-8000-000000000001"})
    assert added.status_code == 201, added.text
    user = httpx.post(f"{project.url}/auth/v1/admin/users", headers=service,
                      json={"email": "late@example.com", "password": "late-password", "email_confirm": True})
    assert user.status_code == 200, user.text
    # A migration written since the start (`supabase db diff | supabase migration new ...`) is local only.
    created = project.ok("migration", "new", "note_tags", stdin=NOTE_TAGS)
    new_file = re.fullmatch(r"Created new migration at (supabase/migrations/(\d{14})_note_tags\.sql)\.\n", created)
    assert new_file, created
    assert (project.workdir / new_file[1]).read_text() == NOTE_TAGS
    new_version = new_file[2]
    pending = [line for line in project.ok("migration", "list").splitlines() if new_version in line]
    assert len(pending) == 1 and pending[0].count(new_version) == 1, pending

    done = project.supalite("db", "reset", timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr

    # The same server answers, without a restart, from the recreated database.
    anon = {"apikey": project.anon_key}
    gone = httpx.get(f"{rest}/notes", params={"title": "eq.Written after the seed", "select": "id"}, headers=service)
    assert gone.status_code == 200 and gone.json() == [], gone.text
    counted = httpx.get(f"{rest}/notes", params={"select": "id"}, headers=anon | {"Prefer": "count=exact"})
    assert counted.status_code == 206 and counted.headers["content-range"] == "0-49/60", counted.headers
    totals = httpx.post(f"{rest}/rpc/note_totals", headers=anon, json={})
    assert totals.json() == {"public": 60, "private": 2}, totals.text
    assert _sign_in(project).status_code == 200
    late = httpx.post(f"{project.url}/auth/v1/token?grant_type=password", headers=anon,
                      json={"email": "late@example.com", "password": "late-password"})
    assert late.status_code == 400 and late.json()["error_code"] == "invalid_credentials", late.text
    # The bucket and its objects_path files are seeded again, as `supabase db reset` does.
    avatar = httpx.get(f"{project.url}/storage/v1/object/public/avatars/default.png")
    assert avatar.status_code == 200
    assert avatar.content == (SAMPLE / "supabase" / "seed-objects" / "avatars" / "default.png").read_bytes()
    # The new migration ran too, and REST serves its column.
    listing = project.ok("migration", "list")
    assert all(listing.count(version) == 2 for version in [*MIGRATIONS, new_version]), listing
    tagged = httpx.get(f"{rest}/notes", params={"select": "title,tags", "title": "eq.Gardening tips"}, headers=anon)
    assert tagged.json() == [{"title": "Gardening tips", "tags": []}], tagged.text


def test_stop_keeps_the_data_and_start_serves_it_again(project: Project) -> None:
    """Last of the tests on the started project: `stop` without --no-backup keeps the database,
    and the next `start` neither seeds it again nor loses what was written."""
    service = {"apikey": project.service_key, "Authorization": f"Bearer {project.service_key}"}
    kept = httpx.post(f"{project.url}/rest/v1/notes", headers=service,
                      json={"title": "Kept across a restart", "owner_id": "b0b00000-0000-4000-8000-000000000002"})
    assert kept.status_code == 201, kept.text
    project.ok("stop")
    with pytest.raises(httpx.TransportError):
        httpx.get(f"{project.url}/health", timeout=5)
    assert project.supalite("status").returncode != 0
    assert (project.workdir / "supabase" / ".supalite").is_dir()

    project.ok("start", timeout=180)
    assert parse_env_output(project.ok("status", "-o", "env")) == project.status
    titles = httpx.get(f"{project.url}/rest/v1/notes", params={"select": "title", "order": "title"},
                       headers=service | {"Prefer": "count=exact"})
    assert titles.headers["content-range"].endswith("/63"), titles.headers  # the seed's 62 once, and the kept one
    assert "Kept across a restart" in [row["title"] for row in titles.json()]
    assert _sign_in(project).status_code == 200


def test_extensions_supabase_preinstalls_need_no_create_extension() -> None:
    """On Supabase uuid-ossp and pgcrypto are in `extensions` from the start: a project may call
    extensions.uuid_generate_v4() and seed with crypt()/gen_salt() without creating either."""
    def without_uuid_ossp(workdir: Path) -> None:
        first = workdir / "supabase" / "migrations" / "20240101120000_profiles_and_notes.sql"
        first.write_text(first.read_text().replace('create extension if not exists "uuid-ossp" with schema extensions;\n', ""))
        assert "uuid-ossp" not in first.read_text() and "pgcrypto" not in first.read_text()

    with started_project(SAMPLE, "sample", prepare=without_uuid_ossp) as (project, _):
        assert _sign_in(project).status_code == 200


def test_a_port_left_in_time_wait_is_free_a_listened_one_is_not() -> None:
    """What lets a restarted project keep its [db] port: a stopped cluster's closed connections
    (TIME_WAIT) do not hold the port, as PostgreSQL's own bind ignores them."""
    from server.provision.embedded import port_is_free

    with socket.socket() as listener:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as PostgreSQL's listener
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert not port_is_free(port)
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = listener.accept()
        accepted.close()  # the server side closes first: its end of the connection waits in TIME_WAIT
        client.close()
    assert port_is_free(port)
