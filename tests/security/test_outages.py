"""The database stops, freezes and comes back under a running server (a scratch PostgreSQL
of this module's own, so it can be stopped and SIGSTOPped).

Every service must answer 503 in its own format within a bounded time (no hang past the
client's timeout, no internal host or port in any body), recover by itself once the
database is back, and stop within 10 s of SIGTERM whatever the database does.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator

import httpx
import psutil
import pytest

from server.provision.embedded import EmbeddedPostgres, free_port
from server.provision.project import migrate
from tests import harness

SECRET = "outage-test-secret-" + "x" * 32
CLIENT_TIMEOUT = 10.0  # a hang shows as a timeout, not as a slow pass
RECOVERY_BOUND = 5.0  # seconds from the database's return to every service answering 200
PASSWORD = "outage-password-123"


class Database:
    """A scratch cluster that stays on one port across restarts."""

    def __init__(self) -> None:
        self.dir = harness.scratch_dir("supalite-outage-pg-") / "data"
        self.port = free_port()
        self.pg = self._cluster()
        self.url = self.pg.start()

    def _cluster(self) -> EmbeddedPostgres:
        pg = EmbeddedPostgres(self.dir, self.port, fast_unsafe=True)
        pg._choose_port = lambda: self.port  # type: ignore[method-assign]  # reuse it even in TIME_WAIT
        return pg

    def processes(self) -> list[psutil.Process]:
        assert self.pg.process is not None
        root = psutil.Process(self.pg.process.pid)
        return [root, *root.children(recursive=True)]

    def _signal_all(self, signum: int) -> None:
        for proc in self.processes():
            try:
                proc.send_signal(signum)
            except psutil.NoSuchProcess:  # a backend that exited since it was listed
                pass

    def freeze(self) -> None:
        self._signal_all(signal.SIGSTOP)

    def thaw(self) -> None:
        self._signal_all(signal.SIGCONT)

    def stop(self) -> None:
        self.pg.stop()

    def start(self) -> None:
        self.pg = self._cluster()
        self.pg.start()


@pytest.fixture(scope="module")
def database() -> Iterator[Database]:
    db = Database()
    migrate(harness.base_settings(db.url, jwt_secret=SECRET), db.url)
    yield db
    try:
        db.thaw()
    except Exception:
        pass
    db.stop()


@pytest.fixture(scope="module")
def server(database: Database) -> Iterator[harness.LiveServer]:
    live = harness.start_server(database.url, args=["--no-migrate"],
                                extra_env={"SUPALITE_JWT_SECRET": SECRET})
    key = live.service_key
    admin = {"apikey": key, "authorization": f"Bearer {key}"}
    created = httpx.post(f"{live.url}/auth/v1/admin/users", headers=admin,
                         json={"email": "outage@example.com", "password": PASSWORD, "email_confirm": True})
    assert created.status_code == 200, created.text
    upload = httpx.post(f"{live.url}/storage/v1/object/covers/outage.png", headers={**admin, "content-type": "image/png"},
                        content=b"\x89PNG\r\n\x1a\n" + b"0" * 64)
    assert upload.status_code == 200, upload.text
    yield live
    live.stop()


def calls(server: harness.LiveServer) -> dict[str, tuple[str, str, dict[str, str], dict | None]]:
    anon = {"apikey": server.anon_key}
    return {
        "health": ("GET", "/health", {}, None),
        "rest": ("GET", "/rest/v1/courses?select=id&limit=1", anon, None),
        "auth": ("POST", "/auth/v1/token?grant_type=password", anon,
                 {"email": "outage@example.com", "password": PASSWORD}),
        "storage": ("GET", "/storage/v1/object/public/covers/outage.png", anon, None),
    }


def ask(server: harness.LiveServer, name: str) -> httpx.Response:
    method, path, headers, body = calls(server)[name]
    return httpx.request(method, server.url + path, headers=headers, json=body, timeout=CLIENT_TIMEOUT)


def assert_unavailable(server: harness.LiveServer, database: Database) -> None:
    """Each service: 503 in its own format, nothing about where the database is."""
    for name in calls(server):
        response = ask(server, name)
        assert response.status_code == 503, (name, response.status_code, response.text)
        text = response.text
        assert str(database.port) not in text and "127.0.0.1" not in text, (name, text)
        body = response.json()
        if name == "health":
            assert body["status"] == "unavailable" and body["database"]["status"] == "down"
        elif name == "rest":
            assert body["code"] == "PGRST000" and body["details"] is None and set(body) == {"code", "message", "details", "hint"}
        elif name == "auth":
            assert body["error_code"] == "unexpected_failure" and body["code"] == 503
        else:
            assert body["statusCode"] == "503" and body["error"] == "DatabaseError"


def wait_recovered(server: harness.LiveServer) -> float:
    """Seconds until every service answers 2xx again (fails past RECOVERY_BOUND)."""
    start = time.monotonic()
    pending = set(calls(server))
    while pending and time.monotonic() - start < RECOVERY_BOUND:
        for name in sorted(pending):
            if ask(server, name).status_code < 300:
                pending.discard(name)
        time.sleep(0.05)
    assert not pending, f"still failing {RECOVERY_BOUND} s after the database came back: {pending}"
    return time.monotonic() - start


def test_everything_answers_while_the_database_is_up(server: harness.LiveServer) -> None:
    for name in calls(server):
        response = ask(server, name)
        assert response.status_code < 300, (name, response.text)


def test_stopped_database_gives_503_everywhere_then_recovers(server: harness.LiveServer, database: Database) -> None:
    ask(server, "rest")  # a cached read must not be served around the outage either
    database.stop()
    try:
        assert_unavailable(server, database)
    finally:
        database.start()
    wait_recovered(server)


def test_frozen_database_gives_503_everywhere_then_recovers(server: harness.LiveServer, database: Database) -> None:
    ask(server, "rest")
    database.freeze()
    try:
        assert_unavailable(server, database)
    finally:
        database.thaw()
    wait_recovered(server)


@pytest.mark.parametrize("outage", ["frozen", "stopped"])
def test_sigterm_stops_the_server_within_10s_whatever_the_database_does(database: Database, outage: str) -> None:
    live = harness.start_server(database.url, args=["--no-migrate"], extra_env={"SUPALITE_JWT_SECRET": SECRET})
    try:
        (database.freeze if outage == "frozen" else database.stop)()
        time.sleep(0.5)  # the listeners notice and start reconnecting
        live.process.send_signal(signal.SIGTERM)
        live.process.wait(10)  # TimeoutExpired fails the test
    finally:
        if live.process.poll() is None:
            os.kill(live.process.pid, signal.SIGKILL)
        (database.thaw if outage == "frozen" else database.start)()
        live.stop()
