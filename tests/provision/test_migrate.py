"""server/provision/migrate.py and project.py: idempotent, transactional, clear failures."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import psycopg
import psycopg.sql
import pytest

from server.provision.embedded import bin_dir
from server.provision.migrate import MigrationError, apply_policies
from server.provision.project import migrate
from tests import harness


def schema_dump(url: str) -> str:
    out = subprocess.run([str(bin_dir() / "pg_dump"), "--schema-only", "--no-owner", url],
                         capture_output=True, text=True, check=True).stdout
    return "\n".join(line for line in out.splitlines() if not line.startswith(("\\restrict", "\\unrestrict")))


def state(url: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute("select version, applied_at from supalite.platform_migrations order by 1").fetchall() + \
            conn.execute("select key, value from supalite.state order by 1").fetchall()


def test_migrating_twice_changes_nothing(settings, database_url: str) -> None:
    before_dump, before_state = schema_dump(database_url), state(database_url)
    migrate(settings, database_url)
    migrate(settings, database_url)
    assert schema_dump(database_url) == before_dump
    assert state(database_url) == before_state


def test_platform_schema_is_recorded(database_url: str) -> None:
    with psycopg.connect(database_url) as conn:
        versions = [r[0] for r in conn.execute("select version from supalite.platform_migrations order by 1")]
        roles = {r[0]: r[1:] for r in conn.execute(
            "select rolname, rolbypassrls, rolinherit, rolcanlogin from pg_roles"
            " where rolname in ('anon','authenticated','service_role','authenticator')")}
        schemas = {r[0] for r in conn.execute("select nspname from pg_namespace")}
    assert versions[0].startswith("0001_")
    assert roles["service_role"][0] is True and roles["anon"][0] is False
    assert roles["authenticator"] == (False, False, True)
    assert {"auth", "storage", "realtime", "extensions"} <= schemas


@pytest.fixture()
def scratch_project(tmp_path: Path) -> Path:
    (tmp_path / "policies").mkdir()
    return tmp_path


def write(path: Path, text: str) -> None:
    path.write_text(text)


def test_policies_apply_once_then_skip_until_changed(database_url: str, scratch_project: Path) -> None:
    policies = scratch_project / "policies"
    write(policies / "notes.sql", "create table if not exists public.notes (id int);\n"
                                  "alter table public.notes enable row level security;\n"
                                  "drop policy if exists notes_read on public.notes;\n"
                                  "create policy notes_read on public.notes for select using (true);\n")
    with psycopg.connect(database_url, autocommit=True) as conn:
        assert apply_policies(conn, policies) is True
        assert apply_policies(conn, policies) is False
        assert apply_policies(conn, policies, force=True) is True


NOTES_POLICY = ("alter table public.notes_recreated enable row level security;\n"
                "drop policy if exists notes_read on public.notes_recreated;\n"
                "create policy notes_read on public.notes_recreated for select using (true);\n")


def has_notes_policy(conn: psycopg.Connection) -> bool:
    return conn.execute("select count(*) from pg_policies where tablename = 'notes_recreated'").fetchone() == (1,)


def test_a_platform_migration_reapplies_the_policies(database_url: str, scratch_project: Path) -> None:
    policies = scratch_project / "policies"
    write(policies / "notes.sql", NOTES_POLICY)
    with psycopg.connect(database_url) as conn:  # one transaction, rolled back at the end
        conn.execute("create table public.notes_recreated (id int)")
        assert apply_policies(conn, policies) is True
        assert apply_policies(conn, policies) is False
        # A newer platform version recreates the table, which drops its policies.
        conn.execute("drop table public.notes_recreated; create table public.notes_recreated (id int)")
        conn.execute("insert into supalite.platform_migrations (version, checksum) values ('9999_recreate.sql', 'x')")
        assert not has_notes_policy(conn)
        assert apply_policies(conn, policies) is True
        assert has_notes_policy(conn)
        assert apply_policies(conn, policies) is False
        conn.rollback()


def test_an_app_migration_reapplies_the_policies(database_url: str, scratch_project: Path) -> None:
    policies = scratch_project / "policies"
    write(policies / "notes.sql", NOTES_POLICY)
    with psycopg.connect(database_url) as conn:
        conn.execute("create table public.notes_recreated (id int)")
        assert apply_policies(conn, policies) is True
        assert apply_policies(conn, policies) is False
        head = conn.execute("select version_num from supalite.alembic_version").fetchone()[0]
        conn.execute("update supalite.alembic_version set version_num = 'next'")
        assert apply_policies(conn, policies) is True
        assert apply_policies(conn, policies) is False
        conn.execute("update supalite.alembic_version set version_num = %s", [head])
        assert apply_policies(conn, policies) is True
        conn.rollback()


def test_a_broken_policy_file_changes_nothing_and_names_file_and_line(database_url: str, scratch_project: Path) -> None:
    policies = scratch_project / "policies"
    write(policies / "a_ok.sql", "create table public.must_not_exist (id int);\n")
    write(policies / "b_bad.sql", "-- comment\nselect 1;\n\ncreate policy p on public.nowhere for select using (true);\n")
    with psycopg.connect(database_url, autocommit=True) as conn:
        with pytest.raises(MigrationError, match=r"policies/b_bad.sql line 4: relation \"public.nowhere\" does not exist"):
            apply_policies(conn, policies)
        assert conn.execute("select to_regclass('public.must_not_exist')").fetchone() == (None,)


def test_alembic_head_and_buckets_are_applied(owner_url: str, template_ready: str, tmp_path: Path) -> None:
    name = harness.unique_name("t_alembic")
    url = harness.create_database(owner_url, name)  # the template carries the app's own alembic head
    try:
        shutil.copytree(Path(__file__).parent / "fixture_project", tmp_path, dirs_exist_ok=True)
        settings = harness.base_settings(url, project_dir=tmp_path)
        migrate(settings, url)
        migrate(settings, url)
        with psycopg.connect(url) as conn:
            assert conn.execute("select count(*) from public.widgets").fetchone() == (0,)
            bucket = conn.execute("select public, file_size_limit, allowed_mime_types from storage.buckets"
                                  " where id = 'covers'").fetchone()
            assert bucket == (True, 2 * 1024 * 1024, ["image/jpeg", "image/png"])
            assert conn.execute("select version_num from supalite.alembic_version").fetchone() == ("0001",)
    finally:
        harness.drop_database(owner_url, name)


def test_a_failing_revision_is_reported_and_rolled_back(owner_url: str, template_ready: str, tmp_path: Path) -> None:
    name = harness.unique_name("t_alembic_bad")
    url = harness.create_database(owner_url, name)  # the template carries the app's own alembic head
    try:
        shutil.copytree(Path(__file__).parent / "fixture_project", tmp_path, dirs_exist_ok=True)
        (tmp_path / "migrations" / "versions" / "0002_broken.py").write_text(
            'revision = "0002"\ndown_revision = "0001"\nfrom alembic import op\n\n'
            'def upgrade():\n    op.execute("create table public.half (id int)")\n'
            '    op.execute("select * from no_such_table")\n\ndef downgrade():\n    pass\n')
        with pytest.raises(MigrationError, match="no_such_table"):
            migrate(harness.base_settings(url, project_dir=tmp_path), url)
        with psycopg.connect(url) as conn:
            assert conn.execute("select to_regclass('public.half')").fetchone() == (None,)
    finally:
        harness.drop_database(owner_url, name)


def test_the_alembic_cli_uses_the_direct_url(database_url: str) -> None:
    """`alembic` run by hand in compose's api container: DATABASE_URL is PgBouncer in transaction
    mode, so the CLI migrates through SUPALITE_DB_DIRECT_URL, as `supalite migrate` does."""
    import os
    import sys

    pooler = f"postgresql://postgres:x@127.0.0.1:{harness.free_port()}/postgres"  # nothing listens
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUPALITE_")}
    env.update(DATABASE_URL=pooler, SUPALITE_DB_DIRECT_URL=database_url)
    result = subprocess.run([sys.executable, "-m", "alembic", "current"], cwd=harness.APP, env=env,
                            capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    with psycopg.connect(database_url) as conn:
        (head,) = conn.execute("select version_num from supalite.alembic_version").fetchone()
    assert head in result.stdout
