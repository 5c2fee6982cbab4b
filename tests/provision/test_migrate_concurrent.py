"""Replicas starting together: the whole `supalite migrate` runs under one lock, so two
processes on one empty database apply each platform file and revision once; the later one
waits for the lock, then finds nothing to do."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import psycopg
import pytest

from server.provision.migrate import MIGRATE_LOCK_KEY, MigrationError, migration_lock, platform_files
from tests import harness

# Who holds and who waits for the migration lock in this database (a bigint key is classid:objid).
LOCKS = ("select pid, granted from pg_locks where locktype = 'advisory' and objsubid = 1"
         " and database = (select oid from pg_database where datname = current_database())"
         " and classid = (%(key)s::bigint >> 32)::oid and objid = (%(key)s::bigint & 4294967295)::oid")

# The revision records each run, then keeps its migrator busy until a second one is seen waiting
# for an advisory lock (at most 30 s): the two processes overlap whatever their start-up times.
REVISION = '''from alembic import op

revision = "0001"
down_revision = None


def upgrade():
    op.execute("insert into public.revision_runs default values")
    op.execute("""
      do $$ begin
        for i in 1..300 loop
          exit when exists (select from pg_locks where locktype = 'advisory' and not granted
                            and database = (select oid from pg_database where datname = current_database()));
          perform pg_sleep(0.1);
        end loop;
      end $$""")


def downgrade():
    pass
'''


def project(root: Path) -> Path:
    """A project folder whose migrations/env.py is the learning site's, with REVISION as its only one."""
    versions = root / "migrations" / "versions"
    versions.mkdir(parents=True)
    for name in ("env.py", "script.py.mako"):
        shutil.copy(harness.APP / "migrations" / name, root / "migrations" / name)
    (versions / "0001_overlap.py").write_text(REVISION)
    return root


def start_migrate(url: str, project_dir: Path, data_dir: Path, log: Path) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_"))}
    # Replicas share their secret, so they agree on the authenticator's password. Roles are
    # cluster-wide: the secret is the other tests' servers' one, or migrate would change the
    # password they log in with.
    env.update({"DATABASE_URL": url, "SUPALITE_PROJECT_DIR": str(project_dir),
                "SUPALITE_DATA_DIR": str(data_dir), "SUPALITE_JWT_SECRET": harness.base_settings(url).jwt_secret})
    with open(log, "wb") as out:
        return subprocess.Popen([harness.SUPALITE, "migrate"], env=env, stdout=out, stderr=subprocess.STDOUT,
                                cwd=str(project_dir), stdin=subprocess.DEVNULL)


def test_two_migrators_at_once_apply_everything_once(owner_url: str, tmp_path: Path) -> None:
    name = harness.unique_name("t_migrate_race")
    url = harness.create_database(owner_url, name)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("create table public.revision_runs (at timestamptz not null default clock_timestamp())")
        folder = project(tmp_path / "project")
        logs = [tmp_path / "a.log", tmp_path / "b.log"]
        processes = [start_migrate(url, folder, tmp_path / "data", log) for log in logs]
        try:
            seen: set[tuple[int, bool]] = set()
            with psycopg.connect(url, autocommit=True) as watcher:
                deadline = time.monotonic() + 120
                # Until one process holds the lock while the other waits for it, or both are done.
                while time.monotonic() < deadline and any(p.poll() is None for p in processes):
                    rows = set(watcher.execute(LOCKS, {"key": MIGRATE_LOCK_KEY}).fetchall())
                    if {granted for _, granted in rows} == {True, False}:
                        seen = rows
                        break
                    time.sleep(0.05)
            codes = [p.wait(120) for p in processes]
        finally:
            for p in processes:
                if p.poll() is None:
                    p.kill()
                    p.wait()
        outputs = [log.read_text(errors="replace") for log in logs]
        assert codes == [0, 0], outputs
        assert len(seen) == 2 and len({pid for pid, _ in seen}) == 2, outputs  # a holder and a waiter

        with psycopg.connect(url) as conn:
            assert conn.execute("select count(*) from public.revision_runs").fetchone() == (1,)
            assert conn.execute("select version_num from supalite.alembic_version").fetchall() == [("0001",)]
            versions = [r[0] for r in conn.execute("select version from supalite.platform_migrations order by 1")]
        assert versions == [f.name for f in platform_files()]
        # One process applied everything; the other waited, then had nothing to apply.
        first, second = sorted(outputs, key=lambda out: "waiting for another migrator" in out)
        assert "platform schema: applied" in first and "Running upgrade" in first, outputs
        assert "waiting for another migrator" in second, outputs
        assert "applied" not in second and "Running upgrade" not in second, outputs
        assert all("database is up to date" in out for out in outputs), outputs
    finally:
        harness.drop_database(owner_url, name)


def test_a_stuck_lock_holder_is_reported_after_the_wait(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as holder:
        holder.execute("select pg_advisory_lock(%s)", [MIGRATE_LOCK_KEY])
        pid = holder.info.backend_pid
        stuck = rf"backend pid {pid}\).*pg_terminate_backend\({pid}\)"
        with pytest.raises(MigrationError, match=stuck), migration_lock(database_url, wait_seconds=0.5):
            pytest.fail("the lock was taken while another backend held it")
        holder.execute("select pg_advisory_unlock(%s)", [MIGRATE_LOCK_KEY])
    with migration_lock(database_url, wait_seconds=0.5), psycopg.connect(database_url) as other:  # free again
        assert other.execute("select pg_try_advisory_lock(%s)", [MIGRATE_LOCK_KEY]).fetchone() == (False,)


def test_the_lock_is_released_when_the_migration_fails(database_url: str) -> None:
    with pytest.raises(RuntimeError), migration_lock(database_url):
        raise RuntimeError("a failing step")
    with psycopg.connect(database_url) as other:
        assert other.execute("select pg_try_advisory_lock(%s)", [MIGRATE_LOCK_KEY]).fetchone() == (True,)


def test_a_revision_building_an_index_concurrently_does_not_wait_for_the_lock(database_url: str) -> None:
    # A transaction held open for the lock would keep a snapshot this build waits for forever.
    with migration_lock(database_url), psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("set statement_timeout = '30s'")
        conn.execute("create table public.concurrent_index (id int)")
        conn.execute("create index concurrently concurrent_index_id on public.concurrent_index (id)")
        assert conn.execute("select to_regclass('public.concurrent_index_id')").fetchone() is not None
