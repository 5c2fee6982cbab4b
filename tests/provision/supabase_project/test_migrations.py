"""supabase/migrations, seed files and bucket objects applied as the Supabase CLI applies them
(supabase_migrations.schema_migrations and seed_files rows, messages), and `supalite
migration new|list`. Each test has its own project folder and a new database of the
session's cluster."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest

from server.core.config import ConfigError, Settings
from server.provision.migrate import MigrationError
from server.provision.project import migrate
from server.provision.supabase_project.migrations import migration_rows, render_table
from tests import harness

CONFIG = 'project_id = "migrations-test"\n'


@dataclass
class Project:
    root: Path
    url: str  # its own database
    settings: Settings

    @property
    def supabase(self) -> Path:
        return self.root / "supabase"

    def write(self, relative: str, text: str | bytes) -> Path:
        path = self.supabase / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return path

    def query(self, statement: str) -> list[tuple[object, ...]]:
        with psycopg.connect(self.url) as conn:
            return conn.execute(statement.encode()).fetchall()

    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_"))}
        env.update({"DATABASE_URL": self.url, "SUPALITE_PROJECT_DIR": str(self.root),
                    "SUPALITE_DATA_DIR": str(self.settings.data_dir), "SUPALITE_LOG_LEVEL": "warning"})
        return env

    def supalite(self, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run([harness.SUPALITE, *args], env=self.env(), cwd=str(self.root), input=stdin,
                              capture_output=True, text=True, timeout=120, check=False,
                              stdin=None if stdin is not None else subprocess.DEVNULL)


@pytest.fixture
def project(owner_url: str) -> Iterator[Project]:
    name = harness.unique_name("proj")
    url = harness.create_database(owner_url, name)
    root = harness.scratch_dir("supabase-project-")
    (root / "supabase").mkdir()
    (root / "supabase" / "config.toml").write_text(CONFIG)
    data = harness.scratch_dir("supabase-data-")
    yield Project(root, url, harness.base_settings(url, project_dir=root, data_dir=data))
    harness.drop_database(owner_url, name)


def stderr_lines(capfd: pytest.CaptureFixture[str]) -> list[str]:
    return capfd.readouterr().err.splitlines()


def test_migrations_run_in_order_and_are_recorded_as_the_cli_records_them(project: Project,
                                                                          capfd: pytest.CaptureFixture[str]) -> None:
    # The second file needs the first: file-name order is the CLI's order.
    project.write("migrations/20240102000000_add_body.sql", "alter table public.mig_notes add column body text;\n")
    project.write("migrations/20240101000000_notes.sql",
                  "create table public.mig_notes (id int primary key);\n\ninsert into public.mig_notes values (1);\n")
    project.write("migrations/README.md", "not a migration")
    project.write("migrations/notes.sql", "select 1/0;")  # no version: skipped, never run
    migrate(project.settings, project.url)
    lines = stderr_lines(capfd)
    applying = [line for line in lines if line.startswith("Applying migration")]
    assert applying == ["Applying migration 20240101000000_notes.sql...",
                        "Applying migration 20240102000000_add_body.sql..."]
    assert 'Skipping migration README.md... (file name must match pattern "<timestamp>_name.sql")' in lines
    assert 'Skipping migration notes.sql... (file name must match pattern "<timestamp>_name.sql")' in lines
    assert project.query("select version, name, statements from supabase_migrations.schema_migrations "
                         "order by version") == [
        ("20240101000000", "notes", ["create table public.mig_notes (id int primary key)",
                                     "insert into public.mig_notes values (1)"]),
        ("20240102000000", "add_body", ["alter table public.mig_notes add column body text"]),
    ]
    # The CLI's table shape, column for column.
    assert project.query("select column_name, data_type, is_nullable from information_schema.columns "
                         "where table_schema = 'supabase_migrations' and table_name = 'schema_migrations' "
                         "order by ordinal_position") == [
        ("version", "text", "NO"), ("statements", "ARRAY", "YES"), ("name", "text", "YES")]

    # A second run applies nothing: the insert would fail on its primary key if it ran again.
    migrate(project.settings, project.url)
    assert not [line for line in stderr_lines(capfd) if line.startswith("Applying")]
    assert project.query("select count(*) from public.mig_notes") == [(1,)]

    # A new file is applied on the next start, alone.
    project.write("migrations/20240103000000_more.sql", "insert into public.mig_notes values (2, 'two');")
    migrate(project.settings, project.url)
    assert [line for line in stderr_lines(capfd) if line.startswith("Applying")] == [
        "Applying migration 20240103000000_more.sql..."]


def test_a_failing_migration_rolls_back_and_names_its_file_and_line(project: Project) -> None:
    project.write("migrations/20240101000000_good.sql", "create table public.mig_good (id int);")
    project.write("migrations/20240102000000_bad.sql",
                  "create table public.mig_half (id int);\n\ninsert into public.mig_half\n  values ('not a number');\n")
    with pytest.raises(MigrationError) as failure:
        migrate(project.settings, project.url)
    assert str(failure.value).startswith("supabase/migrations/20240102000000_bad.sql line 4: ")
    assert "invalid input syntax for type integer" in str(failure.value)
    # The good file stays applied; nothing of the bad one remains, neither its table nor its row.
    assert project.query("select version from supabase_migrations.schema_migrations") == [("20240101000000",)]
    assert project.query("select to_regclass('public.mig_half')") == [(None,)]

    # On the command line: one line, no traceback, exit 1.
    done = project.supalite("migrate")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1].startswith(
        "supalite: error: supabase/migrations/20240102000000_bad.sql line 4: ")
    assert "Traceback" not in done.stderr


def test_a_begin_atomic_function_body_is_one_statement(project: Project) -> None:
    # As pg_dump (supabase db dump/diff) writes a SQL-standard function body.
    project.write("migrations/20240101000000_atomic.sql",
                  "create function public.mig_two() returns int language sql\nbegin atomic\n"
                  "  select case when true then 2 else 0 end;\nend;\n")
    migrate(project.settings, project.url)
    assert project.query("select public.mig_two()") == [(2,)]


def test_seed_files_run_once_on_the_first_start_in_the_declared_order(project: Project,
                                                                      capfd: pytest.CaptureFixture[str]) -> None:
    (project.supabase / "config.toml").write_text(
        CONFIG + '[db.seed]\nenabled = true\nsql_paths = ["./seeds/*.sql", "./seed.sql", "./missing/*.sql"]\n')
    project.write("migrations/20240101000000_log.sql", "create table public.seed_log (n serial, what text);")
    project.write("seeds/b.sql", "insert into public.seed_log (what) values ('seeds/b');")
    project.write("seeds/a.sql", "insert into public.seed_log (what) values ('seeds/a');")
    seed = project.write("seed.sql", "insert into public.seed_log (what) values ('seed');")
    migrate(project.settings, project.url)
    lines = stderr_lines(capfd)
    assert [line for line in lines if line.startswith(("Seeding", "WARN"))] == [
        "WARN: no seed files matched pattern: supabase/missing/*.sql",
        "Seeding data from supabase/seeds/a.sql...",
        "Seeding data from supabase/seeds/b.sql...",
        "Seeding data from supabase/seed.sql...",
    ]
    assert project.query("select what from public.seed_log order by n") == [("seeds/a",), ("seeds/b",), ("seed",)]
    assert ("supabase/seed.sql", hashlib.sha256(seed.read_bytes()).hexdigest()) in project.query(
        "select path, hash from supabase_migrations.seed_files")

    # Later starts do not seed again.
    migrate(project.settings, project.url)
    assert project.query("select count(*) from public.seed_log") == [(3,)]
    assert not [line for line in stderr_lines(capfd) if line.startswith("Seeding")]

    # `supalite seed` runs them again, on purpose.
    done = project.supalite("seed")
    assert done.returncode == 0, done.stderr
    assert project.query("select count(*) from public.seed_log") == [(6,)]


def test_an_interrupted_first_setup_finishes_on_the_next_start(project: Project) -> None:
    (project.supabase / "config.toml").write_text(CONFIG + '[db.seed]\nsql_paths = ["./one.sql", "./two.sql"]\n')
    project.write("migrations/20240101000000_t.sql", "create table public.seed_once (what text primary key);")
    project.write("one.sql", "insert into public.seed_once values ('one');")
    project.write("two.sql", "insert into public.seed_once values ('two');\nselect nonsense;")
    with pytest.raises(MigrationError, match=r"^supabase/two.sql line 2: "):
        migrate(project.settings, project.url)
    assert project.query("select what from public.seed_once") == [("one",)]  # two.sql rolled back
    project.write("two.sql", "insert into public.seed_once values ('two');")
    migrate(project.settings, project.url)  # one.sql is recorded: not run twice (its key would clash)
    assert project.query("select what from public.seed_once order by 1") == [("one",), ("two",)]


@pytest.mark.parametrize("relative", [False, True])
def test_seed_paths_outside_the_project_folder_are_refused(project: Project, relative: bool) -> None:
    # The CLI cannot open a seed file outside the project folder: none is run from there.
    outside = harness.scratch_dir("seed-outside-") / "outside.sql"
    outside.write_text("insert into public.seed_target values (1);")
    pattern = os.path.relpath(outside, project.supabase) if relative else str(outside)
    (project.supabase / "config.toml").write_text(CONFIG + f'[db.seed]\nsql_paths = ["{pattern}"]\n')
    project.write("migrations/20240101000000_t.sql", "create table public.seed_target (id int);")
    with pytest.raises(ConfigError, match=r"^\[db.seed\] sql_paths: .* is outside the project folder "):
        migrate(project.settings, project.url)
    assert project.query("select count(*) from public.seed_target") == [(0,)]
    (project.supabase / "config.toml").write_text(CONFIG + '[db.seed]\nsql_paths = ["../seed.sql"]\n')
    (project.root / "seed.sql").write_text("insert into public.seed_target values (2);")  # the project's root
    migrate(project.settings, project.url)
    assert project.query("select id from public.seed_target") == [(2,)]


def test_seeding_disabled_in_config_skips_the_seed_files(project: Project) -> None:
    (project.supabase / "config.toml").write_text(CONFIG + "[db.seed]\nenabled = false\n")
    project.write("migrations/20240101000000_t.sql", "create table public.no_seed (id int);")
    project.write("seed.sql", "insert into public.no_seed values (1);")
    migrate(project.settings, project.url)
    assert project.query("select count(*) from public.no_seed") == [(0,)]


def test_a_database_the_cli_set_up_is_not_seeded_again(project: Project) -> None:
    # The CLI's history schema already there, without supalite's setup mark: migrations only.
    with psycopg.connect(project.url, autocommit=True) as conn:
        conn.execute("create schema supabase_migrations")
        conn.execute("create table public.cli_made (id int)")
    project.write("seed.sql", "insert into public.cli_made values (1);")
    migrate(project.settings, project.url)
    assert project.query("select count(*) from public.cli_made") == [(0,)]


def test_buckets_and_their_objects_path_are_uploaded_and_served(project: Project,
                                                                capfd: pytest.CaptureFixture[str]) -> None:
    (project.supabase / "config.toml").write_text(CONFIG + """
[storage.buckets.pictures]
public = true
file_size_limit = "1MiB"
allowed_mime_types = ["image/png", "text/plain"]
objects_path = "./pictures"

[storage.buckets.private-docs]
public = false
""")
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    project.write("pictures/readme.txt", "hello")
    project.write("pictures/team/ada.png", png)
    outside = project.write("elsewhere/secret.txt", "not for the bucket")
    (project.supabase / "pictures" / "link.txt").symlink_to(outside)  # skipped, as the CLI skips links
    migrate(project.settings, project.url)
    lines = stderr_lines(capfd)
    assert "Creating Storage bucket: pictures" in lines
    assert "Uploading: supabase/pictures/team/ada.png => pictures/team/ada.png" in lines
    assert project.query("select id, public, file_size_limit, allowed_mime_types from storage.buckets order by id") == [
        ("pictures", True, 1024 * 1024, ["image/png", "text/plain"]),
        ("private-docs", False, 50 * 1024 * 1024, None)]  # [storage] file_size_limit's default
    assert project.query("select name, metadata->>'mimetype' from storage.objects order by name") == [
        ("readme.txt", "text/plain"), ("team/ada.png", "image/png")]

    server = harness.start_server(project.url, args=["--no-migrate"], data_dir=project.settings.data_dir,
                                  extra_env={"SUPALITE_PROJECT_DIR": str(project.root)})
    try:
        public = f"{server.url}/storage/v1/object/public/pictures"
        answer = httpx.get(f"{public}/team/ada.png")
        assert (answer.status_code, answer.content, answer.headers["content-type"]) == (200, png, "image/png")
        assert httpx.get(f"{public}/readme.txt").text == "hello"
        assert httpx.get(f"{public}/link.txt").status_code in (400, 404)
    finally:
        server.stop()


def test_a_missing_objects_path_is_one_line(project: Project) -> None:
    (project.supabase / "config.toml").write_text(CONFIG + '[storage.buckets.gone]\nobjects_path = "./nowhere"\n')
    done = project.supalite("migrate")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "supalite: error: storage.buckets.gone.objects_path: supabase/nowhere does not exist")


def test_an_objects_path_file_over_the_buckets_limit_is_refused_before_it_is_read(project: Project) -> None:
    (project.supabase / "config.toml").write_text(
        CONFIG + '[storage.buckets.small]\nfile_size_limit = "1KiB"\nobjects_path = "./small"\n')
    project.write("small/fits.txt", "x" * 1024)
    project.write("small/big.bin", b"\0" * 1025)  # by its size on disk: a huge file is never read whole
    done = project.supalite("migrate")
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        "supalite: error: supabase/small/big.bin: larger than storage.buckets.small's file_size_limit "
        "(1024 bytes), storage refuses it")


# -- supalite migration new | list ----------------------------------------------------------


def test_migration_new_writes_the_piped_text_under_a_utc_timestamp(project: Project) -> None:
    done = project.supalite("migration", "new", "create_things", stdin="create table public.things (id int);\n")
    assert done.returncode == 0, done.stderr
    match = re.fullmatch(r"Created new migration at (supabase/migrations/(\d{14})_create_things\.sql)\.\n", done.stdout)
    assert match, done.stdout
    assert (project.root / match.group(1)).read_text() == "create table public.things (id int);\n"
    # A terminal-less empty stdin makes an empty file, as the CLI's.
    empty = project.supalite("migration", "new", "empty")
    assert empty.returncode == 0, empty.stderr
    (path,) = (project.supabase / "migrations").glob("*_empty.sql")
    assert path.read_text() == ""


@pytest.mark.parametrize("name", ["../escape", "a/b", "", "  ", "tab\there"])
def test_migration_new_refuses_names_that_leave_the_folder_or_are_empty(project: Project, name: str) -> None:
    done = project.supalite("migration", "new", name)
    assert done.returncode == 1
    assert done.stderr.startswith("supalite: error: ") and len(done.stderr.strip().splitlines()) == 1
    assert not (project.supabase / "migrations").exists() or not list((project.supabase / "migrations").iterdir())
    assert not list(project.root.glob("*.sql")) and not list(project.supabase.glob("*.sql"))


def test_migration_commands_outside_a_project_folder_are_refused(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPALITE_")}
    for args in (["migration", "new", "x"], ["migration", "list"], ["db", "reset"]):
        done = subprocess.run([harness.SUPALITE, *args, "--workdir", str(tmp_path)], env=env, capture_output=True,
                              text=True, timeout=60, check=False, stdin=subprocess.DEVNULL)
        assert done.returncode == 1
        assert done.stderr == (f"supalite: error: cannot find supabase/config.toml in {tmp_path}: "
                               f"run supalite {' '.join(args[:2])} in a Supabase project folder or pass --workdir\n")
        assert len(done.stderr.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_migration_list_prints_the_cli_table(project: Project) -> None:
    project.write("migrations/20240101000000_one.sql", "create table public.list_one (id int);")
    migrate(project.settings, project.url)
    project.write("migrations/20240301120000_two.sql", "select 1;")  # local only
    with psycopg.connect(project.url, autocommit=True) as conn:  # applied elsewhere, not here
        conn.execute("insert into supabase_migrations.schema_migrations (version) values ('20240201000000')")
    done = project.supalite("migration", "list", "--local")
    assert done.returncode == 0, done.stderr
    assert "Connecting to local database..." in done.stderr
    assert done.stdout == (
        "\n"
        "  \n"
        "   Local          | Remote         | Time (UTC)          \n"
        "  ----------------|----------------|---------------------\n"
        "   20240101000000 | 20240101000000 | 2024-01-01 00:00:00 \n"
        "                  | 20240201000000 | 2024-02-01 00:00:00 \n"
        "   20240301120000 |                | 2024-03-01 12:00:00 \n"
    )


def test_migration_table_widths_follow_versions_that_are_not_timestamps() -> None:
    rows = migration_rows(["1", "2"], ["1"])
    assert rows == [("1", "1", "1"), ("2", "", "2")]
    assert render_table(rows).splitlines()[2:] == [
        "   Local | Remote | Time (UTC) ",
        "  -------|--------|------------",
        "   1     | 1      | 1          ",
        "   2     |        | 2          ",
    ]


def test_roles_sql_runs_before_the_migrations_on_the_first_setup_only(project: Project,
                                                                      capfd: pytest.CaptureFixture[str]) -> None:
    role = harness.unique_name("project_role")
    project.write("roles.sql", f"create role {role} nologin;")
    project.write("migrations/20240101000000_grant.sql",
                  f"create table public.{role}_t (id int);\ngrant select on public.{role}_t to {role};")
    try:
        migrate(project.settings, project.url)
        assert "Seeding globals from roles.sql..." in stderr_lines(capfd)
        assert project.query(f"select has_table_privilege('{role}', 'public.{role}_t', 'select')") == [(True,)]
        migrate(project.settings, project.url)  # `create role` again would fail: not run again
        assert "Seeding globals from roles.sql..." not in stderr_lines(capfd)
    finally:
        with psycopg.connect(project.url, autocommit=True) as conn:
            conn.execute(f"drop table if exists public.{role}_t".encode())
            conn.execute(f"drop role if exists {role}".encode())
