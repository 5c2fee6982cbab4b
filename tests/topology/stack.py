"""The production topology of docker-compose.yml as local processes, from the project's own
files: Debian's PostgreSQL 15, PgBouncer in transaction mode (deploy/pgbouncer.ini), moto's S3
server, an SMTP server (aiosmtpd), two `supalite serve` replicas of two workers each with
compose's settings (.env.example), and Debian's nginx (deploy/nginx.conf) in front of them.
The two config files are templated only for ports and file paths."""

from __future__ import annotations

import os
import pwd
import re
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import httpx
import psycopg

from server.core.config import Settings
from server.provision.embedded import PG_SYSTEM_USER, EmbeddedPostgres, free_port
from server.provision.settings import load_settings
from tests import harness
from tests.deploy import compose, nginx

PG15_BIN = Path("/usr/lib/postgresql/15/bin")
PGBOUNCER = Path("/usr/sbin/pgbouncer")
PGBOUNCER_INI = harness.REPO / "deploy" / "pgbouncer.ini"
DATABASE = "topology"
WORKERS = 2
# The /token bucket: GoTrue's burst of 30 per client, whatever the setting; a setting of 12 per 5
# minutes refills one every 25 s, too slow to blur the count within a test.
SIGN_IN_LIMIT = 30
TOKEN_REFRESH_SETTING = 12

# The lines of deploy/pgbouncer.ini a harness may change; anything else is used as written.
_BOUNCER_LINES = {
    re.compile(r"^\* = host=db port=5432$", re.M): "* = host=127.0.0.1 port={db_port}",
    re.compile(r"^listen_addr = 0\.0\.0\.0$", re.M): "listen_addr = 127.0.0.1",
    re.compile(r"^listen_port = 6432$", re.M): "listen_port = {port}",
    re.compile(r"^auth_file = /etc/pgbouncer/userlist\.txt$", re.M): "auth_file = {prefix}/userlist.txt",
}


def pgbouncer_conf(prefix: Path, port: int, db_port: int) -> str:
    text = PGBOUNCER_INI.read_text()
    for pattern, line in _BOUNCER_LINES.items():
        text, count = pattern.subn(line.format(db_port=db_port, port=port, prefix=prefix), text)
        if count != 1:
            raise AssertionError(f"deploy/pgbouncer.ini: expected one line matching {pattern.pattern}")
    # [pgbouncer] is the file's last section: where its own files go, no unix socket.
    return text + f"\npidfile = {prefix}/pgbouncer.pid\nlogfile = {prefix}/pgbouncer.log\nunix_socket_dir =\n"


@contextmanager
def running_postgres(folder: Path) -> Iterator[str]:
    """Debian's PostgreSQL 15, an empty `topology` database; its owner URL."""
    pg = EmbeddedPostgres(folder / "data", port=0, fast_unsafe=True, binaries=PG15_BIN)
    owner_url = pg.start()
    try:
        harness.create_database(owner_url, DATABASE)
        yield harness.with_database(owner_url, DATABASE)
    finally:
        pg.stop()


@contextmanager
def running_pgbouncer(folder: Path, db_url: str) -> Iterator[int]:
    """deploy/pgbouncer.ini in front of `db_url`'s server; its port. The auth file holds the
    owner's password, as compose writes it from POSTGRES_PASSWORD."""
    prefix = folder / "pgbouncer"
    prefix.mkdir()
    parts = psycopg.conninfo.conninfo_to_dict(db_url)
    port = free_port()
    (prefix / "pgbouncer.ini").write_text(pgbouncer_conf(prefix, port, int(parts["port"])))
    (prefix / "userlist.txt").write_text(f'"{parts["user"]}" "{parts["password"]}"\n')
    run_as: list[str] = []
    if os.geteuid() == 0:  # PgBouncer refuses to run as root: as the cluster's system user
        user = pwd.getpwnam(PG_SYSTEM_USER)
        for path in (prefix, *prefix.iterdir()):
            os.chown(path, user.pw_uid, user.pw_gid)
        run_as = ["-u", PG_SYSTEM_USER]
    proc = subprocess.Popen([str(PGBOUNCER), *run_as, str(prefix / "pgbouncer.ini")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        harness.wait_listening(port, proc, "pgbouncer")
        yield port
    finally:
        harness.stop_process(proc, signal.SIGINT)  # SIGINT: PgBouncer's safe shutdown


@contextmanager
def running_s3() -> Iterator[str]:
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


class Mailbox:
    """What the SMTP server received, newest last."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.messages.append(message_from_bytes(envelope.original_content or envelope.content))
        return "250 OK"

    def wait_for(self, to: str, timeout: float = 20) -> Message:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.messages:
                if to in (message["To"] or ""):
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no mail to {to} after {timeout} s")


@contextmanager
def running_smtp() -> Iterator[tuple[int, Mailbox]]:
    from aiosmtpd.controller import Controller

    mailbox = Mailbox()
    port = free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port, mailbox
    finally:
        controller.stop()


@dataclass
class Replica:
    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL to the replica and its workers at once (its own process group), as when
        its machine goes away."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.kill()


def replica_env(settings_env: dict[str, str], data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_", "STORAGE_"))}
    env.pop("DATABASE_URL", None)
    return {**env, **settings_env, "SUPALITE_DATA_DIR": str(data_dir)}


def start_replicas(settings_env: dict[str, str], folder: Path, count: int = 2) -> list[Replica]:
    """`count` replicas started at once (each in its own process group), healthy."""
    replicas = []
    for i in range(count):
        port = free_port()
        (folder / f"replica{i}").mkdir()
        log_path = folder / f"replica{i}" / "server.log"
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(
                [harness.SUPALITE, "serve", "--host", "127.0.0.1", "--port", str(port)],
                env=replica_env(settings_env, folder / f"replica{i}" / "data"), cwd=str(harness.REPO),
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        replicas.append(Replica(port, proc, log_path))
    try:
        for replica in replicas:
            harness.wait_healthy(f"http://{replica.address}", replica.process, timeout=120)
    except RuntimeError as exc:
        logs = "\n".join(f"--- replica {r.address} ---\n{r.log()[-4000:]}" for r in replicas)
        for replica in replicas:
            replica.stop()
        raise RuntimeError(f"{exc}\n{logs}") from None
    return replicas


@dataclass
class Topology(harness.ApiKeys):
    url: str  # nginx: what clients reach
    settings: Settings  # a replica's settings (keys, secret)
    replicas: list[Replica]
    db_url: str  # the owner, straight to PostgreSQL
    bouncer_url: str  # the owner, through PgBouncer
    mailbox: Mailbox
    access_log: Path  # nginx's: status, upstream address, method and path per request
    env: dict[str, str] = field(default_factory=lambda: dict(os.environ))  # for clients run as processes

    @property
    def database_url(self) -> str:
        return self.db_url



# nginx's own part of the test conf: the replicas as one upstream (compose's DNS name with
# two addresses), a header naming the replica that answered, and an access log of the same.
NGINX_HTTP = """  upstream replicas {{
    {servers}
  }}
  log_format topology '$status $upstream_addr $request_method $uri';
  add_header X-Upstream $upstream_addr always;
"""


@contextmanager
def running_topology() -> Iterator[Topology]:
    folder = harness.scratch_dir("supalite-topology-")
    with ExitStack() as stack:
        stack.callback(shutil.rmtree, folder, ignore_errors=True)
        db_url = stack.enter_context(running_postgres(folder))
        bouncer_port = stack.enter_context(running_pgbouncer(folder, db_url))
        bouncer_url = psycopg.conninfo.make_conninfo(db_url, host="127.0.0.1", port=bouncer_port)
        s3 = stack.enter_context(running_s3())
        smtp_port, mailbox = stack.enter_context(running_smtp())
        proxy_port = free_port()
        public_url = f"http://127.0.0.1:{proxy_port}"
        dotenv = {**compose.dotenv_values(compose.ENV_EXAMPLE.read_text()),
                  "SUPALITE_JWT_SECRET": secrets.token_hex(32), "SUPALITE_PUBLIC_URL": public_url,
                  # the suite signs users up and in at once, as compose's operator may choose
                  "GOTRUE_MAILER_AUTOCONFIRM": "true",
                  "SUPALITE_SMTP_URL": f"smtp://127.0.0.1:{smtp_port}"}
        # Compose's settings, but for where things are: addresses, and the pool size's share
        # of this one machine's max_connections.
        settings_env = {
            **compose.service_environment("api", dotenv),
            "DATABASE_URL": bouncer_url,
            "SUPALITE_DB_DIRECT_URL": db_url,
            "SUPALITE_FORWARDED_ALLOW_IPS": "127.0.0.1",  # nginx's address here
            "SUPALITE_PROJECT_DIR": str(harness.APP),
            "SUPALITE_LOG_LEVEL": "info",
            "SUPALITE_AUTH_RATE_LIMIT_TOKEN_REFRESH": str(TOKEN_REFRESH_SETTING),
            "STORAGE_S3_ENDPOINT": s3, "STORAGE_S3_BUCKET": "topology",
        }
        assert settings_env["SUPALITE_WORKERS"] == str(WORKERS)
        replicas = start_replicas(settings_env, folder)
        for replica in replicas:
            stack.callback(replica.stop)
        prefix = folder / "nginx"
        prefix.mkdir()
        access_log = prefix / "access.log"
        servers = "\n    ".join(f"server {r.address};" for r in replicas)
        conf = nginx.write_conf(prefix, nginx.site_conf(f"127.0.0.1:{proxy_port}", "replicas"),
                                NGINX_HTTP.format(servers=servers), access_log=f"{access_log} topology")
        stack.enter_context(nginx.running_nginx(conf, proxy_port))
        httpx.get(f"{public_url}/health", timeout=10).raise_for_status()
        yield Topology(public_url, load_settings(settings_env, dotenv=None), replicas, db_url, bouncer_url,
                       mailbox, access_log)
