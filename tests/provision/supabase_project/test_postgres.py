"""The PostgreSQL a Supabase project runs on: the build its extensions need, the CLI's owner
password, Supabase's roles and search_path, seed users who sign in, clear extension errors."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from server.core.config import ConfigError, Settings
from server.core.conninfo import api_conninfo, authenticator_password
from server.provision.embedded import EmbeddedPostgres, free_port
from server.provision.extensions import PostgresBuild, extensions_in_sql, installed_builds, skipped_platform_extension
from server.provision.migrate import MigrationError, SqlFile, apply_platform_schema, ensure_authenticator_login, run_file
from server.provision.settings import load_settings
from server.provision.supabase_project.config_toml import ProjectConfig, read_project_config
from server.provision.supabase_project.layout import SupabaseProject
from server.provision.supabase_project.postgres import PROJECT_PASSWORD, choice_lines, choose_build, project_embedded
from tests import harness

PG15 = Path("/usr/lib/postgresql/15/bin")
needs_pg15 = pytest.mark.skipif(
    not (PG15 / "postgres").exists(), reason="Debian's postgresql-15 is not installed (apt-get install postgresql-15)"
)
FIXTURES = Path(__file__).parent / "postgres_fixtures"

CONTRIB_MIGRATION = """\
-- What projects enable from the dashboard's extensions page.
create extension if not exists "uuid-ossp" with schema extensions;
create extension if not exists pgcrypto with schema extensions;
create extension if not exists pg_trgm with schema extensions;
create extension if not exists citext with schema extensions;
"""

TABLES_MIGRATION = """\
create table public.members (
  id uuid primary key default uuid_generate_v4(),
  email citext not null unique,
  name text not null,
  invite_code text not null default encode(gen_random_bytes(6), 'hex')
);
create index members_name_trgm on public.members using gin (name gin_trgm_ops);
"""

# As Supabase's docs and the CLI's seed examples write users: crypt()/gen_salt('bf') unqualified,
# GoTrue's token columns as '' (the first) or left NULL (the second).
SEED = """\
insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
  confirmation_token, email_change, email_change_token_new, recovery_token)
values ('00000000-0000-0000-0000-000000000000', 'a0000000-0000-4000-8000-000000000001', 'authenticated',
  'authenticated', 'empty-tokens@example.com', crypt('seed-password-1', gen_salt('bf')), now(),
  '{"provider": "email", "providers": ["email"]}', '{}', now(), now(), '', '', '', '');

insert into auth.users (instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
  confirmation_token, email_change, email_change_token_new, recovery_token, phone_change,
  phone_change_token, email_change_token_current, reauthentication_token)
values ('00000000-0000-0000-0000-000000000000', 'b0000000-0000-4000-8000-000000000002', 'authenticated',
  'authenticated', 'null-tokens@example.com', extensions.crypt('seed-password-2', extensions.gen_salt('bf')),
  now(), '{"provider": "email", "providers": ["email"]}', '{}', now(), now(),
  null, null, null, null, null, null, null, null);

insert into auth.identities (id, user_id, provider_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
select gen_random_uuid(), id, id::text, jsonb_build_object('sub', id::text, 'email', email), 'email', now(), now(), now()
from auth.users;

insert into public.members (email, name) values ('Ada@Example.com', 'Ada Lovelace');
"""


def write_project(root: Path, migrations: dict[str, str], seed: str = "", major_version: int = 17) -> SupabaseProject:
    project = SupabaseProject(root)
    project.migrations_dir.mkdir(parents=True)
    project.config_path.write_text(f'project_id = "pg-test"\n\n[db]\nmajor_version = {major_version}\n')
    for name, text in migrations.items():
        (project.migrations_dir / name).write_text(text)
    if seed:
        (project.supabase_dir / "seed.sql").write_text(seed)
    return project


def project_settings(project: SupabaseProject, data_dir: Path) -> Settings:
    return load_settings({"SUPALITE_PROJECT_DIR": str(project.root), "SUPALITE_DATA_DIR": str(data_dir),
                          "SUPALITE_DB_PORT": "0"}, dotenv=None)


def prepare_platform(url: str) -> None:
    """The platform schema and the API role's login, as `supalite start` does before the project's SQL."""
    settings = harness.base_settings(url)
    with psycopg.connect(url, autocommit=True) as conn:
        apply_platform_schema(conn)
        ensure_authenticator_login(conn, api_conninfo(settings, url), authenticator_password(settings))


def apply_project_sql(url: str, project: SupabaseProject) -> None:
    """Migrations then seed, each file statement by statement (a new session, as the CLI's)."""
    files = sorted(project.migrations_dir.glob("*.sql")) + sorted(project.supabase_dir.glob("seed.sql"))
    with psycopg.connect(url, autocommit=True) as conn:
        for path in files:
            run_file(conn, SqlFile(path.name, path.read_text()), project.relative(path.parent),
                     skip=skipped_platform_extension)


# -- which SQL names which extension ------------------------------------------------------------


def test_extensions_named_by_create_extension_statements() -> None:
    text = """
    -- create extension commented_out;
    /* create extension in_a_comment; */
    create extension if not exists "uuid-ossp" with schema extensions;
    CREATE EXTENSION PgCrypto;
    /* a comment first */ create extension "Quoted""Name" cascade;
    select 'create extension in_a_string';
    do $$ begin execute 'create extension in_a_block'; end $$;
    create table extension_like (id int);
    """
    assert extensions_in_sql(text) == ["uuid-ossp", "pgcrypto", 'Quoted"Name']


# -- choosing the build --------------------------------------------------------------------------


@dataclass
class Pg15Project:
    project: SupabaseProject
    url: str
    note: str


@pytest.fixture(scope="module")
def pg15_project() -> Iterator[Pg15Project]:
    root = harness.scratch_dir("supalite-pg-project-")
    project = write_project(root, {"20240101000000_extensions.sql": CONTRIB_MIGRATION,
                                   "20240101000001_tables.sql": TABLES_MIGRATION}, SEED)
    settings = project_settings(project, root / "supabase" / ".supalite")
    choice = choose_build(project, ProjectConfig(project_id="pg-test", major_version=17), settings.data_dir)
    pg = project_embedded(settings, fast_unsafe=True)
    assert pg is not None
    url = pg.start()
    try:
        prepare_platform(url)
        apply_project_sql(url, project)
        yield Pg15Project(project, url, choice.note or "")
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


@needs_pg15
def test_contrib_extensions_choose_postgres_15_and_apply(pg15_project: Pg15Project) -> None:
    # [db] major_version 17: no such build here, and the wheel (18) lacks uuid-ossp and pgcrypto.
    assert pg15_project.note.startswith("supalite: PostgreSQL 15 (/usr/lib/postgresql/15/bin) runs this project, not 17")
    parts = conninfo_to_dict(pg15_project.url)
    assert (parts["user"], parts["password"], parts["host"]) == ("postgres", PROJECT_PASSWORD, "127.0.0.1")
    with psycopg.connect(pg15_project.url, autocommit=True) as conn:
        assert conn.info.server_version // 10000 == 15
        assert conn.execute("show search_path").fetchone() == ('"$user", public, extensions',)
        row = conn.execute("select id, length(invite_code) from public.members where email = 'ada@example.COM'").fetchone()
        assert row is not None and row[1] == 12
        hit = conn.execute("select name from public.members where name % 'Ada Lovelac'").fetchone()
        assert hit == ("Ada Lovelace",)
        with pytest.raises(psycopg.errors.UniqueViolation):
            conn.execute("insert into public.members (email, name) values ('ADA@example.com', 'Twice')")


@needs_pg15
def test_seed_users_made_with_crypt_sign_in(pg15_project: Pg15Project) -> None:
    server = harness.start_server(pg15_project.url, args=["--no-migrate"])
    try:
        headers = {"apikey": server.anon_key}
        for email, password in (("empty-tokens@example.com", "seed-password-1"),
                                ("null-tokens@example.com", "seed-password-2")):
            reply = httpx.post(f"{server.url}/auth/v1/token?grant_type=password", headers=headers,
                               json={"email": email, "password": password})
            assert reply.status_code == 200, reply.text
            assert reply.json()["user"]["email"] == email
            me = httpx.get(f"{server.url}/auth/v1/user",
                           headers={**headers, "Authorization": f"Bearer {reply.json()['access_token']}"})
            assert me.status_code == 200 and me.json()["email"] == email
        wrong = httpx.post(f"{server.url}/auth/v1/token?grant_type=password", headers=headers,
                           json={"email": "null-tokens@example.com", "password": "not-the-password"})
        assert wrong.status_code == 400 and wrong.json()["error_code"] == "invalid_credentials"
    finally:
        server.stop()


@needs_pg15
def test_supabase_db_pull_output_applies(pg15_project: Pg15Project) -> None:
    """A migration in `supabase db pull`'s shape (owners, grants to Supabase's roles, default
    privileges, search_path ''), then a hand-written one, run against Supabase's roles and RLS."""
    example = SupabaseProject(FIXTURES / "dump_style")
    # Its header creates Supabase's own extensions: no build here has them, the project still runs,
    # and start says which statements are skipped.
    config = read_project_config(example)
    choice = choose_build(example, config, Path(tempfile.mkdtemp()) / "not-made-yet")
    skipped = [line for line in choice_lines(example, config, choice) if "Supabase's own" in line]
    where = "supabase/migrations/20240315101500_remote_schema.sql"
    assert skipped == [f'supalite: warning: {where} creates extension "{name}", Supabase\'s own, which '
                       f"{choice.build.label()} lacks: that statement is skipped, and what calls into it fails by name"
                       for name in ("pgsodium", "pg_graphql", "pgjwt", "supabase_vault")]
    url = harness.create_database(pg15_project.url, "dump_style")
    try:
        prepare_platform(url)
        apply_project_sql(url, example)
        user_a, user_b = "c0000000-0000-4000-8000-000000000001", "c0000000-0000-4000-8000-000000000002"
        with psycopg.connect(url, autocommit=True) as conn:
            for uid, email in ((user_a, "amy@example.com"), (user_b, "ben@example.com")):
                conn.execute("insert into auth.users (id, aud, role, email, created_at) "
                             "values (%s, 'authenticated', 'authenticated', %s, now())", [uid, email])
            assert conn.execute("select count(*) from public.accounts").fetchone() == (2,)
            assert conn.execute("select public from storage.buckets where id = 'avatars'").fetchone() == (True,)
            with conn.transaction(force_rollback=True):
                conn.execute("set local role authenticated")
                conn.execute("select set_config('request.jwt.claims', %s, true)", [f'{{"sub": "{user_a}"}}'])
                assert conn.execute("select display_name from public.accounts").fetchall() == [("amy",)]
                changed = conn.execute("update public.accounts set display_name = 'someone' returning user_id")
                assert [str(r[0]) for r in changed.fetchall()] == [user_a]
    finally:
        harness.drop_database(pg15_project.url, "dump_style")


def test_extension_in_no_build_is_refused_before_anything_runs(tmp_path: Path) -> None:
    if any("pg_cron" in build.extensions for build in installed_builds()):
        pytest.skip("a PostgreSQL here has pg_cron")
    project = write_project(tmp_path, {"20240101000000_init.sql": "select 1;\n",
                                       "20240102000000_cron.sql": 'create extension if not exists "pg_cron" with schema extensions;\n'})
    data_dir = tmp_path / "supabase" / ".supalite"
    with pytest.raises(ConfigError) as caught:
        project_embedded(project_settings(project, data_dir))
    message = str(caught.value)
    assert message.startswith('supabase/migrations/20240102000000_cron.sql creates extension "pg_cron", which no PostgreSQL here has')
    assert "DATABASE_URL" in message and "apt-cache search pg_cron" in message
    assert not data_dir.exists()
    # The same through the command line: one line, exit 1, nothing started.
    result = subprocess.run([harness.SUPALITE, "serve", "--workdir", str(tmp_path), "--port", str(free_port()),
                             "--data-dir", str(data_dir)], capture_output=True, text=True, timeout=60,
                            env={k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "DATABASE_URL"))})
    assert result.returncode == 1
    assert 'supalite: error: supabase/migrations/20240102000000_cron.sql creates extension "pg_cron"' in result.stderr
    assert "Traceback" not in result.stderr
    assert not data_dir.exists()


def test_seed_file_extensions_count_too(tmp_path: Path) -> None:
    project = write_project(tmp_path, {}, seed="create extension no_such_extension_here;\n")
    with pytest.raises(ConfigError, match=r'^supabase/seed.sql creates extension "no_such_extension_here"'):
        choose_build(project, ProjectConfig(project_id="pg-test"), tmp_path / "data")
    # Seeding off in config.toml: the seed file is not run, so it does not count.
    chosen = choose_build(project, ProjectConfig(project_id="pg-test", seed_enabled=False), tmp_path / "data")
    assert chosen.build == expected_build(17)
    assert chosen.note is None if chosen.build.major == 17 else "not 17" in (chosen.note or "")


def with_preinstalled() -> list[PostgresBuild]:
    """Builds having what Supabase's image preinstalls (pgcrypto, uuid-ossp), else every build."""
    builds = installed_builds()
    return [b for b in builds if {"pgcrypto", "uuid-ossp"} <= b.extensions] or builds


def expected_build(wanted: int) -> PostgresBuild:
    """The major version asked for among the preferred builds, else the nearest of them."""
    preferred = with_preinstalled()
    exact = [b for b in preferred if b.major == wanted]
    return exact[0] if exact else min(preferred, key=lambda b: (abs(b.major - wanted), -b.major))


def test_new_cluster_without_extensions_gets_major_version_when_installed(tmp_path: Path) -> None:
    project = write_project(tmp_path, {"20240101000000_init.sql": "create table t (id int);\n"})
    for build in with_preinstalled():
        chosen = choose_build(project, ProjectConfig(project_id="pg-test", major_version=build.major), tmp_path / "d")
        assert (chosen.build, chosen.note) == (build, None)


def test_a_build_with_supabases_preinstalled_extensions_is_preferred(tmp_path: Path) -> None:
    """Projects call uuid_generate_v4() and crypt() without creating them, as Supabase preinstalls them."""
    project = write_project(tmp_path, {"20240101000000_init.sql": "create table t (id int);\n"})
    for build in installed_builds():
        chosen = choose_build(project, ProjectConfig(project_id="pg-test", major_version=build.major), tmp_path / "d")
        assert chosen.build == expected_build(build.major)
        if chosen.build != build:
            assert chosen.note is not None and "lacks pgcrypto, uuid-ossp" in chosen.note


def test_existing_cluster_runs_on_its_own_version(tmp_path: Path) -> None:
    project = write_project(tmp_path, {"20240101000000_init.sql": CONTRIB_MIGRATION})
    data_dir = tmp_path / "data"
    (data_dir / "postgres").mkdir(parents=True)
    config = ProjectConfig(project_id="pg-test", major_version=15)
    wheel = next(b for b in installed_builds() if b.embedded)
    (data_dir / "postgres" / "PG_VERSION").write_text(f"{wheel.major}\n")
    if "pgcrypto" not in wheel.extensions:  # made by the wheel, which lacks what the project now creates
        with pytest.raises(ConfigError) as caught:
            choose_build(project, config, data_dir)
        assert str(caught.value) == (
            f'supabase/migrations/20240101000000_init.sql creates extension "uuid-ossp", which PostgreSQL '
            f"{wheel.major} (embedded) of the existing cluster in {data_dir} lacks: remove {data_dir} to make it "
            "anew on a PostgreSQL that has it")
    (data_dir / "postgres" / "PG_VERSION").write_text("9\n")
    with pytest.raises(ConfigError, match=r"made by PostgreSQL 9, which is not installed here: apt-get install postgresql-9"):
        choose_build(project, config, data_dir)


def test_embedded_refuses_a_cluster_of_another_version(tmp_path: Path) -> None:
    data_dir = harness.scratch_dir("supalite-pg-version-")
    try:
        (data_dir / "postgres").mkdir()
        (data_dir / "postgres" / "PG_VERSION").write_text("9\n")
        (data_dir / "postgres-password").write_text("x")
        with pytest.raises(ConfigError, match=r"made by PostgreSQL 9, not \d+"):
            EmbeddedPostgres(data_dir, port=0).start()
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


def test_the_site_is_not_a_project() -> None:
    settings = load_settings({"SUPALITE_PROJECT_DIR": str(harness.APP)}, dotenv=None)
    assert project_embedded(settings) is None


# -- a failing create extension ------------------------------------------------------------------


@pytest.fixture(scope="module")
def scratch_db(owner_url: str) -> Iterator[str]:
    name = harness.unique_name("t_pg_ext")
    yield harness.create_database(owner_url, name)
    harness.drop_database(owner_url, name)


def test_failing_create_extension_says_which_and_what_to_do(scratch_db: str) -> None:
    with psycopg.connect(scratch_db, autocommit=True) as conn:
        running = f"{conn.info.server_version // 10000}.{conn.info.server_version % 10000}"
        missing = SqlFile("20240101000000_init.sql", "select 1;\n\ncreate extension if not exists no_such_ext;\n")
        with pytest.raises(MigrationError) as caught:
            run_file(conn, missing, "supabase/migrations")
        assert str(caught.value) == (
            f'supabase/migrations/20240101000000_init.sql line 3: extension "no_such_ext" is not available in the '
            f"running PostgreSQL {running} nor in any PostgreSQL installed here: install a PostgreSQL package that "
            "has it (apt-cache search no_such_ext); or set DATABASE_URL to a PostgreSQL that has it")
        twice = SqlFile("seed.sql", "create extension plpgsql;\n")
        with pytest.raises(MigrationError, match=rf'^supabase/seed.sql line 1: create extension "plpgsql" failed on '
                                                 rf'PostgreSQL {running}: extension "plpgsql" already exists$'):
            run_file(conn, twice, "supabase")


@needs_pg15
def test_extension_another_build_has_is_pointed_to(scratch_db: str) -> None:
    with psycopg.connect(scratch_db, autocommit=True) as conn:
        if conn.execute("select from pg_available_extensions where name = 'uuid-ossp'").fetchone() is not None:
            pytest.skip("the running PostgreSQL has uuid-ossp")
        with pytest.raises(MigrationError) as caught:
            run_file(conn, SqlFile("x.sql", 'create extension "uuid-ossp";\n'), "supabase/migrations")
    assert 'extension "uuid-ossp" is not available in the running PostgreSQL' in str(caught.value)
    assert ("PostgreSQL 15 (/usr/lib/postgresql/15/bin) has it: set [db] major_version = 15 in supabase/config.toml "
            "and remove the data dir") in str(caught.value)


# -- what Supabase's image has, in every database (the site's included) --------------------------


def test_supabase_roles_schema_and_search_path_in_the_site_database(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        roles = dict(conn.execute(
            "select rolname, rolcanlogin from pg_roles where rolname = any(%s)",
            [["postgres", "supabase_admin", "supabase_auth_admin", "supabase_storage_admin", "dashboard_user"]]))
        assert roles.keys() == {"postgres", "supabase_admin", "supabase_auth_admin", "supabase_storage_admin",
                                "dashboard_user"}
        assert not any(login for name, login in roles.items() if name != "postgres")
        conn.execute("set role anon")
        reply = conn.execute("select graphql_public.graphql(query => '{ __typename }')").fetchone()
        assert reply == ({"data": None, "errors": ["pg_graphql extension is not enabled."]},)
        conn.execute("reset role")
        setting = conn.execute("select setconfig from pg_db_role_setting s join pg_roles r on r.oid = s.setrole "
                               "where r.rolname = 'postgres' and s.setdatabase = 0").fetchone()
        assert setting == (['search_path="$user", public, extensions'],)


# -- root, and a data dir made by mktemp -d ------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0, reason="only root hands the cluster to a system user")
def test_root_with_a_0700_data_dir() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="supalite-0700-"))
    assert stat.S_IMODE(data_dir.stat().st_mode) == 0o700
    pg = EmbeddedPostgres(data_dir, port=0, fast_unsafe=True)
    try:
        with psycopg.connect(pg.start()) as conn:
            assert conn.execute("select 1").fetchone() == (1,)
        mode = stat.S_IMODE(data_dir.stat().st_mode)
        assert mode & 0o001 and not mode & 0o006  # others may enter, not list or write
    finally:
        pg.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
