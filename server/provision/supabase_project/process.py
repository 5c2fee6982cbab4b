"""`supalite start` / `supalite stop`: the project's server as a background process, as
`supabase start` / `supabase stop` run the local stack.

`start` runs `supalite serve` in its own session (it outlives the terminal), its output in
`<data dir>/supalite.log` and its pid in `<data dir>/supalite.pid`; the embedded PostgreSQL
is the server's child and stops with it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from server.core.config import ConfigError, Settings
from server.provision.embedded import Cluster
from server.provision.supabase_project.layout import SupabaseProject, find_project

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
    return b"server.cli.main" in argv and b"serve" in argv and ours in environ


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
    from server.provision.supabase_project.config_toml import read_project_config

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


def spawn(settings: Settings, project: SupabaseProject) -> subprocess.Popen[bytes]:
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
            [sys.executable, "-m", "server.cli.main", "serve"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,  # neither the terminal's Ctrl-C nor its closing reaches it
        )
    temporary = pid_path(settings).with_suffix(".tmp")
    temporary.write_text(f"{process.pid}\n")
    temporary.replace(pid_path(settings))
    return process


def kill_session(pid: int) -> None:
    """SIGKILL the server's session (start made it a session leader): workers and PostgreSQL with it."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def abandon(settings: Settings, process: subprocess.Popen[bytes]) -> None:
    """Stop a child that failed to come up, and forget it."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            kill_session(process.pid)
            process.wait()
    pid_path(settings).unlink(missing_ok=True)


def wait_healthy(settings: Settings, process: subprocess.Popen[bytes]) -> None:
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


def wait_gone(pid: int, data_dir: Path, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while _is_server_process(pid, data_dir):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def wait_cluster_stopped(settings: Settings, timeout: float = 10.0) -> None:
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
