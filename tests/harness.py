"""Test harness: one PostgreSQL per session, a migrated template, a database per module,
and live servers (`supalite serve` subprocesses on free ports)."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import psycopg
from psycopg import sql
from psycopg.conninfo import make_conninfo

from server.core.config import Settings
from server.core.jwt import anon_key, service_role_key
from server.core.pool import Pool
from server.provision.embedded import EmbeddedPostgres, free_port
from server.provision.settings import load_settings
from server.rest import flight

REPO = Path(__file__).resolve().parent.parent
# The app the suites serve (SUPALITE_PROJECT_DIR): the learning site, learning/README.md.
APP = REPO / "learning"
TEMPLATE_DB = "supalite_template"
SUPALITE = str(Path(sys.executable).parent / "supalite")


def scratch_dir(prefix: str) -> Path:
    """A temp dir the cluster's system user can traverse (pytest's tmp dirs are 0700)."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    path.chmod(0o755)
    return path


def with_database(url: str, dbname: str) -> str:
    return make_conninfo(url, dbname=dbname)


def base_settings(database_url: str, **overrides: object) -> Settings:
    env = {
        "DATABASE_URL": database_url,
        "SUPALITE_PROJECT_DIR": str(APP),
        "SUPALITE_RATE_LIMITS": "false",
        "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true",
    }
    settings = load_settings(env, dotenv=None)
    return settings.with_overrides(**overrides)


def create_database_from_template(owner_url: str, name: str) -> str:
    return create_database(owner_url, name, template=TEMPLATE_DB)


def create_database(owner_url: str, name: str, template: str | None = None) -> str:
    """A fresh database `name` (empty, or a copy of `template`); its URL."""
    create = sql.SQL("create database {}").format(sql.Identifier(name))
    if template is not None:
        create += sql.SQL(" template {}").format(sql.Identifier(template))
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))
        conn.execute(create)
    return with_database(owner_url, name)


def drop_database(owner_url: str, name: str) -> None:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(name)))


def build_template(owner_url: str) -> None:
    """Create and migrate the template every test database is cloned from."""
    from server.provision.project import migrate

    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute(sql.SQL("drop database if exists {} with (force)").format(sql.Identifier(TEMPLATE_DB)))
        conn.execute(sql.SQL("create database {}").format(sql.Identifier(TEMPLATE_DB)))
    url = with_database(owner_url, TEMPLATE_DB)
    migrate(base_settings(url), url)


def unique_name(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


class ApiKeys:
    """The anon and service_role keys of a server's settings."""

    settings: Settings

    @property
    def anon_key(self) -> str:
        return anon_key(self.settings)

    @property
    def service_key(self) -> str:
        return service_role_key(self.settings)


@dataclass
class LiveServer(ApiKeys):
    """A `supalite serve` process, with what a client needs to reach it."""

    url: str
    database_url: str
    process: subprocess.Popen[bytes]
    settings: Settings
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)
    scratch: list[Path] = field(default_factory=list)  # removed when the server stops

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        for path in self.scratch:
            shutil.rmtree(path, ignore_errors=True)


def wait_healthy(url: str, process: subprocess.Popen[bytes] | None, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"server exited with {process.returncode}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.05)
    raise RuntimeError(f"server at {url} not healthy after {timeout}s")


def wait_listening(port: int, proc: subprocess.Popen[Any], what: str, timeout: float = 30) -> None:
    """Until `proc` accepts on 127.0.0.1:`port`; fails when it exits or the time is up."""
    deadline = time.monotonic() + timeout
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{what} is not listening on {port} after {timeout} s") from None
            time.sleep(0.05)


def stop_process(proc: subprocess.Popen[Any], sig: int = signal.SIGTERM) -> None:
    """`sig`, then SIGKILL if it has not exited 15 s later."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(5)


def start_server(database_url: str | None, *, extra_env: dict[str, str] | None = None,
                 args: list[str] | None = None, data_dir: Path | None = None,
                 command: tuple[str, ...] = ("serve",)) -> LiveServer:
    port = free_port()
    log_dir = scratch_dir("supalite-log-")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_"))}
    env.pop("DATABASE_URL", None)
    # Anonymous sign-ins are off by default, as in GoTrue; the suites sign in anonymously.
    env.update({"SUPALITE_PROJECT_DIR": str(APP), "SUPALITE_RATE_LIMITS": "false", "SUPALITE_LOG_LEVEL": "warning",
                "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true"})
    if database_url:
        env["DATABASE_URL"] = database_url
    # Each server gets its own data dir (stored objects, secrets) unless the test shares one.
    own_data = None if data_dir else scratch_dir("supalite-data-")
    env["SUPALITE_DATA_DIR"] = str(data_dir or own_data / "data")
    env.update(extra_env or {})
    log_path = log_dir / "server.log"
    with open(log_path, "wb") as log:
        process = subprocess.Popen(
            [SUPALITE, *command, "--port", str(port), *(args or [])],
            env=env, stdout=log, stderr=subprocess.STDOUT, cwd=str(REPO), stdin=subprocess.DEVNULL,
        )
    url = f"http://127.0.0.1:{port}"
    settings = load_settings({k: v for k, v in env.items()}, dotenv=None).with_overrides(port=port)
    server = LiveServer(url, database_url or "", process, settings, log_path, env,
                        [p for p in (own_data, log_dir) if p is not None])
    try:
        wait_healthy(url, process)
    except RuntimeError as exc:
        log = server.log()
        server.stop()
        raise RuntimeError(f"{exc}\n--- server log ---\n{log}") from None
    return server


def session_cluster() -> Iterator[str]:
    """The owner URL of the test session's PostgreSQL: DATABASE_URL, or a fresh embedded one."""
    external = os.environ.get("DATABASE_URL")
    if external:
        yield external
        return
    pg = EmbeddedPostgres(scratch_dir("supalite-pg-") / "data", port=0, fast_unsafe=True)
    try:
        yield pg.start()
    finally:
        pg.stop()


def process_tree_rss(pid: int) -> int:
    """Resident bytes of a process and all its children (a server and its PostgreSQL)."""
    import psutil

    root = psutil.Process(pid)
    total = 0
    for proc in (root, *root.children(recursive=True)):
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            pass
    return total


async def until(condition: Callable[[], bool], timeout: float = 10.0, what: str = "the condition") -> None:
    """Poll `condition` on the event loop until it holds; fail after `timeout` seconds."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError(f"{what} did not hold within {timeout} s")
        await asyncio.sleep(0.01)


_BACKEND_PID = flight.to_statement(b"select pg_backend_pid()")


async def flight_pid(pool: Pool) -> int:
    """The backend pid of the connection a flight borrows from `pool` (which one it was given)."""
    lease = await pool.acquire()
    try:
        results = await flight.run(lease.conn, [(_BACKEND_PID, ())], lease)
        [(pid,)] = flight.rows(results[0])
        assert pid is not None
        return int(pid)
    finally:
        await pool.release(lease)
