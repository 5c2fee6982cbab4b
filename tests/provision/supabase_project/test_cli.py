"""`supalite start | stop | status` in a Supabase project folder, as the Supabase CLI's, `gen types`
with the CLI's flags, and one-off commands beside a running server (real processes throughout)."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import psycopg
import pytest
import yaml

from server.core.jwt import anon_key, service_role_key
from server.provision.embedded import Cluster, free_port
from server.provision.settings import load_settings
from server.provision.supabase_project.config_toml import read_project_config
from server.provision.supabase_project.layout import find_project
from server.provision.supabase_project.postgres import choose_build
from tests import harness
from tests.provision.supabase_project.projects import clean_environment

CONFIG_TOML = """\
project_id = "cli-test"

[api]
enabled = true
port = 54321
schemas = ["public"]

[api.tls]
enabled = true

[db]
port = 54322
major_version = 17
"""
WARNING = "supalite: warning: supabase/config.toml: [api.tls]: HTTPS is not served: put a TLS proxy in front\n"
DEMO = load_settings({}, dotenv=None)
NOT_RUNNING = "supalite local development setup is not running.\n"
# The CLI's pretty block: every label right-aligned to "service_role key".
_BLOCK_LINE = re.compile(r"^( *)(API URL|DB URL|Inbucket URL|JWT secret|anon key|service_role key): (\S+)$")
_ENV_LINE = re.compile(r'^([A-Z_]+)="([^"\\]*)"$')


@dataclass
class Folder:
    """A Supabase project folder (or not) and the environment its commands run with."""

    root: Path
    env: dict[str, str]
    start_output: subprocess.CompletedProcess[str] | None = None  # what `supalite start` printed

    @property
    def data_dir(self) -> Path:
        return self.root / "supabase" / ".supalite"  # a project's default

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.env['SUPALITE_PORT']}"

    def run(self, *args: str, cwd: Path | None = None, timeout: float = 180,
            env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([harness.SUPALITE, *args], env=self.env | (env or {}), cwd=str(cwd or self.root),
                              capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL, check=False)
        assert "Traceback" not in done.stderr, done.stderr
        return done

    def ok(self, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        done = self.run(*args, cwd=cwd)
        assert done.returncode == 0, f"supalite {' '.join(args)}: exit {done.returncode}\n{done.stdout}\n{done.stderr}"
        return done

    def pid(self) -> int:
        return int((self.data_dir / "supalite.pid").read_text())


def new_folder(*, project: bool = True) -> Folder:
    root = harness.scratch_dir("supalite-cli-")
    if project:
        (root / "supabase").mkdir()
        (root / "supabase" / "config.toml").write_text(CONFIG_TOML)
    env = clean_environment() | {
        "SUPALITE_PORT": str(free_port()), "SUPALITE_DB_PORT": str(free_port()), "SUPALITE_LOG_LEVEL": "warning",
    }
    return Folder(root, env)


def parse_block(stdout: str) -> dict[str, str]:
    values = {}
    for line in stdout.splitlines():
        match = _BLOCK_LINE.match(line)
        assert match, f"not a status line: {line!r}"
        padding, label, value = match.groups()
        assert len(padding) + len(label) == 16, f"not right-aligned as the CLI: {line!r}"
        values[label] = value
    return values


def parse_env(stdout: str) -> dict[str, str]:
    assert stdout.endswith("\n")
    values = {}
    for line in stdout.splitlines():
        match = _ENV_LINE.match(line)
        assert match, f"not a KEY=\"value\" line: {line!r}"
        values[match[1]] = match[2]
    assert list(values) == sorted(values), "godotenv sorts the variables"
    return values


def wait_for(condition, what: str, timeout: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def health_answers(url: str) -> bool:
    try:
        httpx.get(f"{url}/health", timeout=2)
    except httpx.HTTPError:
        return False
    return True


@pytest.fixture(scope="module")
def started() -> Iterator[Folder]:
    """A project started by `supalite start` (what it printed kept for the tests)."""
    folder = new_folder()
    before = folder.run("status")
    assert (before.returncode, before.stdout, before.stderr) == (1, "", NOT_RUNNING)
    folder.start_output = folder.ok("start")
    try:
        yield folder
    finally:
        folder.run("stop", "--no-backup")
        shutil.rmtree(folder.root, ignore_errors=True)


def _started_block(folder: Folder) -> dict[str, str]:
    assert folder.start_output is not None
    return parse_block(folder.start_output.stdout)


def build_note(folder: Folder) -> str:
    """The line start prints when the project's new cluster runs on another major version, or ""."""
    project = find_project(folder.root)
    assert project is not None
    note = choose_build(project, read_project_config(project), folder.root / "not-made-yet").note
    return f"{note}\n" if note else ""


def test_start_prints_the_status_block(started: Folder) -> None:
    done = started.start_output
    assert done is not None
    # When no build of [db] major_version is here, start says which runs (the server's line goes to its log).
    assert done.stderr == WARNING + build_note(started) + "Started supalite local development setup.\n\n"
    block = parse_block(done.stdout)
    assert list(block) == ["API URL", "DB URL", "Inbucket URL", "JWT secret", "anon key", "service_role key"]
    assert block["API URL"] == started.api_url
    assert block["Inbucket URL"] == f"{started.api_url}/inbox"
    assert block["anon key"] == anon_key(DEMO) and block["service_role key"] == service_role_key(DEMO)
    assert block["JWT secret"] == DEMO.jwt_secret
    # The DB URL is the CLI's (owner password postgres), of the cluster in the project's data dir.
    assert block["DB URL"] == f"postgresql://postgres:postgres@127.0.0.1:{started.env['SUPALITE_DB_PORT']}/postgres"
    with psycopg.connect(block["DB URL"], connect_timeout=5) as conn:
        assert conn.info.port == int(started.env["SUPALITE_DB_PORT"])
        assert conn.execute("show data_directory").fetchone() == (str(started.data_dir / "postgres"),)
    assert httpx.get(f"{started.api_url}/health").status_code == 200
    # Detached: its own session, its output in the data dir's log.
    assert os.getsid(started.pid()) == started.pid()
    assert (started.data_dir / "supalite.log").is_file()


def test_start_twice_says_it_is_running(started: Folder) -> None:
    pid = started.pid()
    done = started.ok("start")
    assert done.stderr == WARNING + "supalite start is already running.\nsupalite local development setup is running.\n\n"
    assert parse_block(done.stdout) == _started_block(started)
    assert started.pid() == pid


def test_status_pretty(started: Folder) -> None:
    done = started.ok("status")
    assert done.stderr == "supalite local development setup is running.\n\n"
    assert parse_block(done.stdout) == _started_block(started)


def test_serve_prints_the_warnings(started: Folder) -> None:
    """Then refuses the port the started server holds, in one line."""
    done = started.run("serve")
    assert done.returncode == 1
    assert done.stderr.startswith(WARNING + f"supalite: error: cannot listen on 127.0.0.1:{started.env['SUPALITE_PORT']}")
    assert done.stderr.count("\n") == 2


def test_status_env_json_toml_yaml(started: Folder) -> None:
    env = parse_env(started.ok("status", "-o", "env").stdout)
    api = started.api_url
    assert env == {
        "API_URL": api, "REST_URL": f"{api}/rest/v1", "DB_URL": env["DB_URL"],
        "INBUCKET_URL": f"{api}/inbox", "MAILPIT_URL": f"{api}/inbox", "JWT_SECRET": DEMO.jwt_secret,
        "ANON_KEY": anon_key(DEMO), "SERVICE_ROLE_KEY": service_role_key(DEMO),
    }
    assert env["DB_URL"] == parse_block(started.ok("status").stdout)["DB URL"]
    # The values work: REST with the anon key, the inbox, the database.
    assert httpx.get(env["REST_URL"] + "/", headers={"apikey": env["ANON_KEY"]}).status_code == 200
    assert httpx.get(env["INBUCKET_URL"]).status_code == 200
    psycopg.connect(env["DB_URL"], connect_timeout=5).close()
    as_json = started.ok("status", "-o", "json").stdout
    assert json.loads(as_json) == env and as_json.startswith('{\n  "ANON_KEY": ')
    assert tomllib.loads(started.ok("status", "-o", "toml").stdout) == env
    assert yaml.safe_load(started.ok("status", "-o", "yaml").stdout) == env


def test_status_override_name(started: Folder) -> None:
    done = started.ok("status", "-o", "env", "--override-name", "api.url=NEXT_PUBLIC_SUPABASE_URL",
                      "--override-name", "auth.anon_key=NEXT_PUBLIC_SUPABASE_ANON_KEY,db.url=SUPABASE_DB_URL",
                      "--override-name", "studio.url=STUDIO")
    env = parse_env(done.stdout)
    assert env["NEXT_PUBLIC_SUPABASE_URL"] == started.api_url
    assert env["NEXT_PUBLIC_SUPABASE_ANON_KEY"] == anon_key(DEMO)
    assert "SUPABASE_DB_URL" in env and "STUDIO" not in env
    assert not {"API_URL", "ANON_KEY", "DB_URL"} & env.keys()


@pytest.mark.parametrize(("override", "message"), [
    ("api.url", "--override-name 'api.url': expected name=VARIABLE"),
    ("api.urls=X", "--override-name: unknown name 'api.urls'"),
    ("api.url=NEXT PUBLIC", "--override-name api.url: 'NEXT PUBLIC' is not a variable name"),
    ("api.url=$(id)", "--override-name api.url: '$(id)' is not a variable name"),
])
def test_status_bad_override_name(started: Folder, override: str, message: str) -> None:
    done = started.run("status", "-o", "env", "--override-name", override)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"supalite: error: {message}") and done.stderr.count("\n") == 1, done.stderr


def test_options_after_the_subcommand_from_another_folder(started: Folder, tmp_path: Path) -> None:
    """--workdir and --data-dir after the subcommand, run from elsewhere, beside the running server."""
    env_status = parse_env(started.ok("status", "-o", "env", "--workdir", str(started.root), cwd=tmp_path).stdout)
    url = started.ok("db", "url", "--data-dir", str(started.data_dir), cwd=tmp_path).stdout
    assert url == env_status["DB_URL"] + "\n"
    again = started.ok("start", "--workdir", str(started.root), cwd=tmp_path)
    assert again.stderr.startswith(WARNING + "supalite start is already running.\n")


def test_another_project_on_the_same_api_port(started: Folder) -> None:
    """Two projects keep the template's [api] port: start refuses it rather than take the running
    project's /health for its own server's."""
    other = new_folder()
    try:
        other.env["SUPALITE_PORT"] = started.env["SUPALITE_PORT"]
        done = other.run("start")
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == WARNING + (f"supalite: error: cannot listen on 127.0.0.1:{started.env['SUPALITE_PORT']}: "
                                         "Address already in use\n")
        assert not (other.data_dir / "supalite.pid").exists()
    finally:
        shutil.rmtree(other.root, ignore_errors=True)


def test_a_pid_file_naming_another_projects_server_is_stale(started: Folder) -> None:
    """A pid recycled by another project's `supalite start` (after a reboot): that server is not this one's."""
    other = new_folder()
    try:
        other.data_dir.mkdir(parents=True)
        (other.data_dir / "supalite.pid").write_text(f"{started.pid()}\n")
        stopped = other.ok("stop")
        assert stopped.stdout == NOT_RUNNING
        assert not (other.data_dir / "supalite.pid").exists()
        assert health_answers(started.api_url) and os.getsid(started.pid()) == started.pid()
        (other.data_dir / "supalite.pid").write_text(f"{started.pid()}\n")
        status = other.run("status")
        assert (status.returncode, status.stdout, status.stderr) == (1, "", NOT_RUNNING)
    finally:
        shutil.rmtree(other.root, ignore_errors=True)


def test_gen_types_flags(started: Folder) -> None:
    with psycopg.connect(parse_env(started.ok("status", "-o", "env").stdout)["DB_URL"], autocommit=True) as conn:
        conn.execute("create schema if not exists extra")
        conn.execute("create table if not exists extra.gadgets (id bigint primary key, label text not null)")
        conn.execute("create table if not exists public.widgets (id bigint primary key)")
    legacy = started.ok("gen", "types", "typescript").stdout
    assert "widgets: {" in legacy and "gadgets: {" not in legacy
    assert started.ok("gen", "types", "typescript", "--local").stdout == legacy
    assert started.ok("gen", "types", "--lang", "typescript", "--local").stdout == legacy
    assert started.ok("gen", "types", "--local").stdout == legacy
    both = started.ok("gen", "types", "--local", "-s", "public,extra").stdout
    assert "widgets: {" in both and "gadgets: {" in both and "label: string" in both
    assert started.ok("gen", "types", "--local", "--schema", "public", "-s", "extra").stdout == both
    assert "widgets: {" not in started.ok("gen", "types", "--local", "--schema", "extra").stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--linked"], "--linked reads a hosted Supabase project"),
    (["--project-id", "abcdefghij"], "--project-id reads a hosted Supabase project"),
    (["--local", "--db-url", "postgresql://x@127.0.0.1:1/x"], "--local and --db-url cannot be used together"),
    (["go"], "use --lang flag to specify the typegen language"),
    (["--lang", "swift"], "--lang swift: supalite generates typescript types only"),
    (["--local", "-s", "public,"], "--schema: empty schema name"),
])
def test_gen_types_refused_flags(args: list[str], message: str) -> None:
    folder = new_folder(project=False)
    done = folder.run("gen", "types", *args)
    shutil.rmtree(folder.root)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"supalite: error: {message}") and done.stderr.count("\n") == 1


def test_not_a_project_folder() -> None:
    folder = new_folder(project=False)
    for args, where in ((["start"], folder.root), (["start", "--workdir", str(folder.root)], Path("/"))):
        done = folder.run(*args, cwd=where)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr == (f"supalite: error: cannot find supabase/config.toml in {folder.root}: run supalite "
                               "start in a Supabase project folder or pass --workdir\n")
    assert list(folder.root.iterdir()) == []
    shutil.rmtree(folder.root)


def test_stop_stale_pid_and_no_backup() -> None:
    folder = new_folder()
    try:
        stopped = folder.ok("stop")
        assert stopped.stdout == NOT_RUNNING
        folder.ok("start")
        api, pid = folder.api_url, folder.pid()
        # A killed server leaves its pid file: status, start and stop see through it.
        os.killpg(pid, signal.SIGKILL)
        wait_for(lambda: Cluster(folder.data_dir).running_port() is None, "the orphaned PostgreSQL to stop")
        assert folder.run("status").stderr == NOT_RUNNING
        assert not (folder.data_dir / "supalite.pid").exists()
        (folder.data_dir / "supalite.pid").write_text(f"{pid}\n")
        restarted = folder.ok("start")
        assert restarted.stderr.endswith("Started supalite local development setup.\n\n")
        assert folder.pid() != pid
        # A pid file naming a live process that is not a supalite server is stale too: never signalled.
        server_pid = folder.pid()
        with subprocess.Popen(["sleep", "60"]) as other:
            (folder.data_dir / "supalite.pid").write_text(f"{other.pid}\n")
            refused = folder.run("stop")
            assert refused.returncode == 1 and "was not started by `supalite start`" in refused.stderr
            assert other.poll() is None
            other.kill()
        assert not (folder.data_dir / "supalite.pid").exists()
        (folder.data_dir / "supalite.pid").write_text(f"{server_pid}\n")

        done = folder.ok("stop")
        assert done.stdout == "Stopped supalite local development setup.\n"
        assert f"Local data are kept in {folder.data_dir}" in done.stderr
        assert not (folder.data_dir / "supalite.pid").exists()
        assert not health_answers(api)
        assert Cluster(folder.data_dir).running_port() is None
        assert (folder.data_dir / "postgres" / "PG_VERSION").exists()
        assert folder.run("status").returncode == 1
        again = folder.ok("stop", "--no-backup")
        assert again.stdout == NOT_RUNNING and not folder.data_dir.exists()
    finally:
        folder.run("stop", "--no-backup")
        shutil.rmtree(folder.root, ignore_errors=True)


def test_stop_no_backup_keeps_a_folder_that_is_not_a_data_dir() -> None:
    folder = new_folder(project=False)
    precious = folder.root / "precious.txt"
    precious.write_text("keep me")
    refusal = (f"supalite: error: {folder.root} does not look like a supalite data directory "
               "(precious.txt is not supalite's): not deleting it\n")
    done = folder.run("stop", "--no-backup", "--data-dir", str(folder.root))
    assert (done.returncode, done.stdout, done.stderr) == (1, NOT_RUNNING, refusal)
    assert precious.read_text() == "keep me"
    # A folder holding a cluster and the server's log beside other files (SUPALITE_DATA_DIR=. in a
    # site's folder, a log redirected there): only a folder holding nothing but supalite's goes.
    (folder.root / "postgres").mkdir()
    (folder.root / "postgres" / "PG_VERSION").write_text("17\n")
    (folder.root / "supalite.log").write_text("")
    done = folder.run("stop", "--no-backup", cwd=folder.root, env={"SUPALITE_DATA_DIR": "."})
    assert (done.returncode, done.stdout, done.stderr) == (1, NOT_RUNNING, refusal)
    assert precious.read_text() == "keep me"
    precious.unlink()
    assert folder.ok("stop", "--no-backup", "--data-dir", str(folder.root)).stdout == NOT_RUNNING
    assert not folder.root.exists()


def test_start_with_an_unusable_data_dir() -> None:
    folder = new_folder()
    blocker = folder.root / "a-file"
    blocker.write_text("")
    done = folder.run("start", "--data-dir", str(blocker / "data"))
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr == WARNING + f"supalite: error: cannot read {blocker / 'data' / 'supalite.pid'}: Not a directory\n"
    # A place where nothing can be created (procfs): the data dir cannot be made.
    done = folder.run("start", "--data-dir", "/proc/supalite-absent/data")
    assert done.returncode == 1 and done.stdout == ""
    note = build_note(folder)
    assert done.stderr.startswith(WARNING + note + "supalite: error: cannot start the server in /proc/supalite-absent/data: ")
    assert done.stderr.count("\n") == 2 + note.count("\n"), done.stderr
    shutil.rmtree(folder.root)


def test_start_reports_a_server_that_cannot_start() -> None:
    folder = new_folder()
    port = folder.env["SUPALITE_PORT"]
    with socket.socket() as taken:  # a port taken is said before anything starts
        taken.bind(("127.0.0.1", int(port)))
        taken.listen()
        done = folder.run("start")
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == WARNING + f"supalite: error: cannot listen on 127.0.0.1:{port}: Address already in use\n"
    # The server refuses a short JWT secret once spawned: start shows its log's last lines.
    done = folder.run("start", env={"SUPALITE_JWT_SECRET": "too-short"})
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.splitlines()
    assert any("SUPALITE_JWT_SECRET must be at least 32 characters long" in line for line in lines[:-1]), done.stderr
    assert lines[-1].startswith("supalite: error: the server exited with code 1 at start (its log: ")
    assert not (folder.data_dir / "supalite.pid").exists()
    shutil.rmtree(folder.root)


def test_one_off_commands_beside_a_running_site_server() -> None:
    """`policies check` (the site's own matrix) and `db url --data-dir D` use the running server's cluster."""
    data = harness.scratch_dir("supalite-cli-site-") / "data"
    server = harness.start_server(None, data_dir=data, extra_env={"SUPALITE_DB_PORT": str(free_port())})
    try:
        env = clean_environment() | {"SUPALITE_PROJECT_DIR": str(harness.APP)}
        run = [harness.SUPALITE, "policies", "check", "--data-dir", str(data)]
        checked = subprocess.run(run, env=env, cwd=str(harness.REPO), capture_output=True, text=True, timeout=300,
                                 check=False)
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert "already running" not in checked.stderr
        url = subprocess.run([harness.SUPALITE, "db", "url", "--data-dir", str(data)], env=env, capture_output=True,
                             text=True, timeout=60, check=False)
        assert url.returncode == 0, url.stderr
        with psycopg.connect(url.stdout.strip(), connect_timeout=5) as conn:
            assert conn.execute("show data_directory").fetchone() == (str(data / "postgres"),)
        assert httpx.get(f"{server.url}/health").status_code == 200  # the server was left running
        # The foreground server is running but not `supalite start`'s: stop says so instead of "not running".
        stop = subprocess.run([harness.SUPALITE, "stop", "--data-dir", str(data)], env=env | {
            "SUPALITE_PORT": server.url.rsplit(":", 1)[1]}, capture_output=True, text=True, timeout=60, check=False)
        assert stop.returncode == 1 and "was not started by `supalite start`" in stop.stderr
    finally:
        server.stop()
        shutil.rmtree(data.parent, ignore_errors=True)
