"""`supalite start` / `supalite stop`: the project's server as a background process, as
`supabase start` / `supabase stop` run the local stack.

`start` runs `supalite serve` in its own session (it outlives the terminal), its output in
`<data dir>/supalite.log` and its pid in `<data dir>/supalite.pid`; the embedded PostgreSQL
is the server's child and stops with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from server.cli import check_port_free
from server.config import ConfigError, Settings
from server.db.embedded import Cluster
from server.supabase_project.layout import SupabaseProject, find_project, require_project

PID_FILE = "supalite.pid"
LOG_FILE = "supalite.log"
START_TIMEOUT = 120.0  # seconds: a cold start (initdb, migrations) takes about 3 s
STOP_TIMEOUT = 15.0  # seconds: a server stops within 10 s of SIGTERM whatever its database does
LOG_TAIL_LINES = 20


def pid_path(settings: Settings) -> Path:
    return settings.data_dir / PID_FILE


def log_path(settings: Settings) -> Path:
    return settings.data_dir / LOG_FILE


def _is_server_process(pid: int, data_dir: Path) -> bool:
    """Whether `pid` is a live `supalite serve` on `data_dir`: not a recycled pid of another
    program, nor the server of another project (a pid file outlives a reboot)."""
    proc = Path("/proc")
    if not proc.is_dir():  # no procfs: trust the pid
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True
    try:
        argv = (proc / str(pid) / "cmdline").read_bytes().split(b"\0")
        environ = (proc / str(pid) / "environ").read_bytes().split(b"\0")
    except OSError:
        return False
    # An exited process waiting to be reaped has an empty command line; start hands its server
    # the data dir in its environment (_spawn_in).
    ours = os.fsencode(f"SUPALITE_DATA_DIR={data_dir}")
    return b"server.cli" in argv and b"serve" in argv and ours in environ


def running_pid(settings: Settings) -> int | None:
    """Pid of the server `supalite start` started on this data dir; a stale pid file is removed."""
    path = pid_path(settings)
    try:
        text = path.read_text()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from None
    try:
        pid = int(text.split()[0])
    except (ValueError, IndexError):
        pid = 0
    if pid > 0 and _is_server_process(pid, settings.data_dir):
        return pid
    path.unlink(missing_ok=True)  # the server was killed or the file is not ours
    return None


def local_url(settings: Settings) -> str:
    """Where this machine reaches the server it binds (the public URL may route elsewhere)."""
    host = settings.host
    if host in ("0.0.0.0", ""):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{settings.port}"


def _get_health(settings: Settings, timeout: float = 2.0) -> tuple[int, object] | None:
    """Status and JSON body of the server's /health; None when nothing answers there."""
    import urllib.error
    import urllib.request

    url = f"{local_url(settings)}/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            status, raw = response.status, response.read(65536)
    except urllib.error.HTTPError as exc:  # 503 while its database is down
        status, raw = exc.code, exc.read(65536)
    except (OSError, ValueError):
        return None
    try:
        return status, json.loads(raw)
    except ValueError:
        return status, None


def health_answers(settings: Settings) -> bool:
    """A supalite server answers /health there (200, or 503 while its database is down)."""
    answer = _get_health(settings)
    return answer is not None and isinstance(answer[1], dict) and "services" in answer[1]


def _healthy(settings: Settings) -> bool:
    answer = _get_health(settings)
    return answer is not None and answer[0] == 200


def print_warnings(settings: Settings) -> None:
    """config.toml's keys supalite does not run, one line each (start and serve in a project)."""
    from server.supabase_project.config_toml import read_project_config

    project = find_project(settings.project_dir)
    if project is None:
        return
    for warning in read_project_config(project).warnings:
        print(f"supalite: warning: {warning}", file=sys.stderr, flush=True)


def _log_tail(path: Path) -> list[str]:
    try:
        return path.read_text(errors="replace").rstrip().splitlines()[-LOG_TAIL_LINES:]
    except OSError:
        return []


def _spawn(settings: Settings, project: SupabaseProject) -> subprocess.Popen[bytes]:
    try:
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        return _spawn_in(settings, project)
    except OSError as exc:
        raise ConfigError(f"cannot start the server in {settings.data_dir}: {exc.strerror or exc}") from None


def _spawn_in(settings: Settings, project: SupabaseProject) -> subprocess.Popen[bytes]:
    env = dict(os.environ)
    # The child reads its settings again: hand it what this command resolved (--workdir, --data-dir).
    env["SUPALITE_PROJECT_DIR"] = str(project.root)
    env["SUPALITE_DATA_DIR"] = str(settings.data_dir)
    env["SUPALITE_HOST"] = settings.host
    env["SUPALITE_PORT"] = str(settings.port)
    with open(log_path(settings), "wb") as log:  # the child keeps its own descriptor
        process = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "serve"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,  # neither the terminal's Ctrl-C nor its closing reaches it
        )
    temporary = pid_path(settings).with_suffix(".tmp")
    temporary.write_text(f"{process.pid}\n")
    temporary.replace(pid_path(settings))
    return process


def _kill_session(pid: int) -> None:
    """SIGKILL the server's session (start made it a session leader): workers and PostgreSQL with it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _abandon(settings: Settings, process: subprocess.Popen[bytes]) -> None:
    """Stop a child that failed to come up, and forget it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            _kill_session(process.pid)
            process.wait()
    pid_path(settings).unlink(missing_ok=True)


def _wait_healthy(settings: Settings, process: subprocess.Popen[bytes]) -> None:
    """Until the server answers /health; ConfigError when it exits or never answers (the
    caller abandons it)."""
    deadline = time.monotonic() + START_TIMEOUT
    while not _healthy(settings):
        code = process.poll()
        if code is not None:
            for line in _log_tail(log_path(settings)):
                print(f"  {line}", file=sys.stderr)
            raise ConfigError(f"the server exited with code {code} at start (its log: {log_path(settings)})")
        if time.monotonic() > deadline:
            raise ConfigError(
                f"the server did not answer {local_url(settings)}/health within {START_TIMEOUT:.0f} s "
                f"(its log: {log_path(settings)})"
            )
        time.sleep(0.1)


def _say_build(settings: Settings, project: SupabaseProject) -> None:
    """Which PostgreSQL runs the project when it is not [db] major_version (the server's own
    line goes to its log); a missing extension stops here, before anything starts."""
    from server.supabase_project.config_toml import read_project_config
    from server.supabase_project.postgres import choice_lines, choose_build

    config = read_project_config(project)
    for line in choice_lines(project, config, choose_build(project, config, settings.data_dir)):
        print(line, file=sys.stderr, flush=True)


def cmd_start(settings: Settings, args: argparse.Namespace) -> int:
    from server.supabase_project import status

    project = require_project(settings.project_dir, "start")
    print_warnings(settings)
    if status.is_running(settings):
        print("supalite start is already running.", file=sys.stderr)
        return status.print_status(settings, "pretty", {})
    # Another project's server on the template's port would answer the /health start waits for.
    check_port_free(settings.host, settings.port)
    if not settings.database_url:
        _say_build(settings, project)
    process = _spawn(settings, project)
    try:
        _wait_healthy(settings, process)
    except BaseException:
        _abandon(settings, process)  # also at Ctrl-C while waiting: the child is in its own session
        raise
    print("Started supalite local development setup.\n", file=sys.stderr, flush=True)
    status.print_block(status.status_values(settings))
    return 0


def _wait_gone(pid: int, data_dir: Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _is_server_process(pid, data_dir):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _wait_cluster_stopped(settings: Settings, timeout: float = 10.0) -> None:
    cluster = Cluster(settings.data_dir)
    deadline = time.monotonic() + timeout
    while cluster.running_port() is not None and time.monotonic() < deadline:
        time.sleep(0.05)


def _check_data_dir(cluster: Cluster) -> None:
    """Refuse a folder holding anything supalite does not make in a data dir (a data dir set to
    a project's own folder), or none of what it makes."""
    data = cluster.data_dir
    refusal = f"{data} does not look like a supalite data directory"
    # The cluster, its password, stored objects (storage's FileBackend), start's files, and
    # what an interrupted initdb leaves (EmbeddedPostgres).
    ours = {cluster.pgdata.name, cluster.password_file.name, "storage", PID_FILE, LOG_FILE,
            Path(PID_FILE).with_suffix(".tmp").name, ".write-test", ".initdb-pw"}
    try:
        entries = sorted(os.listdir(data))
    except OSError as exc:
        raise ConfigError(f"{refusal} ({exc.strerror}): not deleting it") from None
    foreign = [entry for entry in entries if entry not in ours]
    if foreign:
        raise ConfigError(f"{refusal} ({foreign[0]} is not supalite's): not deleting it")
    if not any(path.exists() for path in (cluster.pgdata / "PG_VERSION", cluster.password_file,
                                          data / PID_FILE, data / LOG_FILE)):
        raise ConfigError(f"{refusal}: not deleting it")


def delete_data(settings: Settings) -> None:
    """`--no-backup`: the cluster and stored objects go, as the CLI removes its volumes."""
    data = settings.data_dir
    if not data.exists():
        return
    if settings.database_url:
        raise ConfigError("--no-backup deletes an embedded database: this project's is DATABASE_URL's; drop it there")
    cluster = Cluster(data)
    if cluster.running_port() is not None:
        raise ConfigError(f"the embedded PostgreSQL in {data} is still running (a `supalite serve`?): stop it first")
    _check_data_dir(cluster)
    try:
        shutil.rmtree(data)
    except OSError as exc:
        raise ConfigError(f"cannot delete {data}: {exc.strerror or exc}") from None
    print(f"Deleted {data}.", file=sys.stderr)


def cmd_stop(settings: Settings, args: argparse.Namespace) -> int:
    no_backup = bool(getattr(args, "no_backup", False))
    pid = running_pid(settings)
    if pid is None:
        from server.supabase_project.status import is_running

        if is_running(settings):
            raise ConfigError(f"the server on {settings.data_dir} was not started by `supalite start` "
                              "(a `supalite serve`?): stop it where it runs")
        print("supalite local development setup is not running.")
        if no_backup:
            delete_data(settings)
        return 0
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        pass  # it has just exited
    if not _wait_gone(pid, settings.data_dir, STOP_TIMEOUT):
        _kill_session(pid)
        _wait_gone(pid, settings.data_dir, 5.0)
    _wait_cluster_stopped(settings)
    pid_path(settings).unlink(missing_ok=True)
    print("Stopped supalite local development setup.")
    if no_backup:
        delete_data(settings)
    elif settings.data_dir.exists() and not settings.database_url:
        print(f"Local data are kept in {settings.data_dir}: `supalite stop --no-backup` deletes them.",
              file=sys.stderr)
    return 0
