"""`supalite db reset`: the database recreated with its migrations, seed and bucket objects,
beside a running server (whose next request must answer) or with the server stopped
(the embedded cluster of the project's data dir); refused in production."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import make_conninfo

from server.core.config import ConfigError
from server.provision.embedded import EmbeddedPostgres, free_port
from server.provision.extensions import installed_builds
from server.provision.supabase_project.reset import recreate_database
from tests import harness

CONFIG = """project_id = "reset-test"

[storage.buckets.files]
public = true
objects_path = "./files"
"""
MIGRATION = """create table public.reset_items (id int primary key, label text not null);
alter table public.reset_items enable row level security;
create policy "anyone reads" on public.reset_items for select using (true);
grant select on public.reset_items to anon;
"""
SEED = "insert into public.reset_items values (1, 'seeded');\n"


def make_project() -> Path:
    root = harness.scratch_dir("reset-project-")
    supabase = root / "supabase"
    (supabase / "migrations").mkdir(parents=True)
    (supabase / "files").mkdir()
    (supabase / "config.toml").write_text(CONFIG)
    (supabase / "migrations" / "20240101000000_items.sql").write_text(MIGRATION)
    (supabase / "seed.sql").write_text(SEED)
    (supabase / "files" / "hello.txt").write_text("hello from objects_path")
    return root


def supalite(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([harness.SUPALITE, *args, "--workdir", str(root)], env=env, cwd=str(root),
                          capture_output=True, text=True, timeout=180, check=False, stdin=subprocess.DEVNULL)


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_"))}
    env.pop("DATABASE_URL", None)
    env["SUPALITE_LOG_LEVEL"] = "warning"
    env.update(extra)
    return env


def stored_files(data_dir: Path) -> set[str]:
    root = data_dir / "storage"
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()} if root.exists() else set()


@pytest.fixture
def served(owner_url: str) -> Iterator[tuple[Path, harness.LiveServer]]:
    """A project and a running server on a new database, set up at the server's start."""
    name = harness.unique_name("reset")
    url = harness.create_database(owner_url, name)
    root = make_project()
    data = harness.scratch_dir("reset-data-") / "data"
    server = harness.start_server(url, data_dir=data, extra_env={"SUPALITE_PROJECT_DIR": str(root)})
    # The commands of the tests find the server where a user's settings say it listens.
    server.env["SUPALITE_PORT"] = str(server.settings.port)
    yield root, server
    server.stop()
    harness.drop_database(owner_url, name)


def test_reset_beside_a_running_server_restores_the_seed(served: tuple[Path, harness.LiveServer]) -> None:
    root, server = served
    data_dir = server.settings.data_dir
    rest = f"{server.url}/rest/v1/reset_items"
    headers = {"apikey": server.anon_key}
    assert httpx.get(rest, headers=headers).json() == [{"id": 1, "label": "seeded"}]
    # Rows and objects made after the seed: the reset must take them away.
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("insert into public.reset_items values (2, 'added later')")
    service = {"apikey": server.service_key, "authorization": f"Bearer {server.service_key}"}
    extra = httpx.post(f"{server.url}/storage/v1/object/files/extra.txt", content=b"later",
                       headers={**service, "content-type": "text/plain"})
    assert extra.status_code == 200, extra.text
    before = stored_files(data_dir)
    assert any(name.startswith("files/extra.txt/") for name in before)

    done = supalite(root, server.env, "db", "reset")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    expected = ["Resetting local database...", "Recreating database...",
                "Applying migration 20240101000000_items.sql...", "Seeding data from supabase/seed.sql...",
                "Creating Storage bucket: files", "Uploading: supabase/files/hello.txt => files/hello.txt"]
    assert [line for line in lines if line in expected] == expected
    assert lines[-1].startswith("Finished supalite db reset on branch ")

    # The server's first request after the reset answers, with the seed only.
    answer = httpx.get(rest, headers=headers)
    assert answer.status_code == 200, answer.text
    assert answer.json() == [{"id": 1, "label": "seeded"}]
    assert httpx.get(f"{server.url}/storage/v1/object/public/files/hello.txt").text == "hello from objects_path"
    assert httpx.get(f"{server.url}/storage/v1/object/public/files/extra.txt").status_code in (400, 404)
    # No stored bytes without their row: exactly the new database's objects remain.
    with psycopg.connect(server.database_url) as conn:
        rows = conn.execute("select bucket_id || '/' || name || '/' || version from storage.objects").fetchall()
    assert stored_files(data_dir) == {key for (key,) in rows}
    assert not before & stored_files(data_dir)


def test_reset_with_no_seed_leaves_the_tables_empty(served: tuple[Path, harness.LiveServer]) -> None:
    root, server = served
    done = supalite(root, server.env, "db", "reset", "--no-seed", "--local")
    assert done.returncode == 0, done.stderr
    assert "Seeding data from" not in done.stderr
    answer = httpx.get(f"{server.url}/rest/v1/reset_items", headers={"apikey": server.anon_key})
    assert (answer.status_code, answer.json()) == (200, [])


def test_reset_is_refused_in_production(served: tuple[Path, harness.LiveServer]) -> None:
    root, server = served
    # A project folder is a dev stack (SUPALITE_DEV) unless the environment says otherwise.
    env = {**server.env, "SUPALITE_JWT_SECRET": "a-real-production-secret-of-at-least-32-chars",
           "SUPALITE_DEV": "false"}
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        conn.execute("insert into public.reset_items values (2, 'kept')")
    done = supalite(root, env, "db", "reset")
    assert done.returncode == 1
    assert done.stderr == ("supalite: error: refusing to reset a production database (real JWT secret): "
                           "db reset is for dev machines\n")
    with psycopg.connect(server.database_url) as conn:
        assert conn.execute("select count(*) from public.reset_items").fetchone() == (2,)


def test_reset_is_refused_before_dropping_when_the_role_could_not_create_the_database_again(
        owner_url: str) -> None:
    # A DATABASE_URL owner without CREATEDB may drop its database but not make it again.
    role, name = harness.unique_name("reset_owner"), harness.unique_name("reset_nocreatedb")
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create role {} login password 'pw' nocreatedb").format(sql.Identifier(role)))
        conn.execute(sql.SQL("create database {} owner {}").format(sql.Identifier(name), sql.Identifier(role)))
    url = make_conninfo(harness.with_database(owner_url, name), user=role, password="pw")
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create table public.kept (id int)")
        with pytest.raises(ConfigError, match=rf"^cannot reset database {name}: role {role} could drop it but not "
                                              r"create it again \(it needs CREATEDB\)"):
            recreate_database(url)
        with psycopg.connect(url) as conn:
            assert conn.execute("select to_regclass('public.kept')::text").fetchone() == ("kept",)
    finally:
        harness.drop_database(owner_url, name)
        with psycopg.connect(owner_url, autocommit=True) as conn:
            conn.execute(sql.SQL("drop role if exists {}").format(sql.Identifier(role)))


def test_reset_with_the_server_stopped_uses_the_projects_own_cluster() -> None:
    root = make_project()
    data = harness.scratch_dir("reset-embedded-") / "data"
    port = free_port()
    env = clean_env(SUPALITE_DATA_DIR=str(data), SUPALITE_DB_PORT=str(port))
    first = supalite(root, env, "migrate")
    assert first.returncode == 0, first.stderr
    made_by = int((data / "postgres" / "PG_VERSION").read_text())  # the build the project's cluster was given
    build = next(b for b in installed_builds() if b.major == made_by)
    cluster = EmbeddedPostgres(data, port, binaries=build.bin_dir, password="postgres")
    url = cluster.start()
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("insert into public.reset_items values (2, 'added later')")
    finally:
        cluster.stop()
    done = supalite(root, env, "db", "reset")
    assert done.returncode == 0, done.stderr
    assert "Seeding data from supabase/seed.sql..." in done.stderr
    url = cluster.start()
    try:
        with psycopg.connect(url) as conn:
            assert conn.execute("select id, label from public.reset_items").fetchall() == [(1, "seeded")]
            assert conn.execute("select name from storage.objects").fetchall() == [("hello.txt",)]
    finally:
        cluster.stop()
