"""server.workers without a server: a worker that cannot bind its socket fails to start
(the supervisor then stops instead of starting another, forever), a second supervisor for
the same port is refused instead of joining the first one's SO_REUSEPORT group, and a
worker that cannot be started stops those already running, and one that does not stop when
told to is killed (the supervisor returns, and the embedded PostgreSQL is stopped)."""

from __future__ import annotations

import signal
import socket
import sys

import pytest
from uvicorn.config import STARTUP_FAILURE, Config

from server import workers
from server.config import ConfigError

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the port claim is Linux's")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def config_for(port: int) -> Config:
    return Config("server.app:app_from_environment", factory=True, host="127.0.0.1", port=port)


def test_a_worker_whose_port_is_taken_outside_the_group_fails_to_start() -> None:
    with socket.socket() as other:  # a server without SO_REUSEPORT, listening
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        other.bind(("127.0.0.1", 0))
        other.listen()
        worker = workers.Worker(config_for(other.getsockname()[1]), [])
        try:
            with pytest.raises(SystemExit) as exited:
                worker.target()
        finally:
            worker.parent_conn.close()
            worker.child_conn.close()
    assert exited.value.code == STARTUP_FAILURE


@linux_only
def test_a_second_supervisor_for_the_port_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()

    def no_worker(config: Config) -> workers.Worker:
        raise AssertionError("a worker was started")

    monkeypatch.setattr(workers, "_start", no_worker)
    first = workers.claim_port(port)  # the first supervisor's, its workers not listening yet
    placeholder = workers.reuse_port_socket("127.0.0.1", port)
    try:
        with pytest.raises(ConfigError, match=f"cannot listen on 127.0.0.1:{port}"):
            workers.run_workers(config_for(port), 2)
    finally:
        placeholder.close()
        if first is not None:
            first.close()
    again = workers.claim_port(port)  # released with its socket
    assert again is not None
    again.close()


class FakeProcess:
    def __init__(self, hung: bool) -> None:
        self.hung = hung
        self.exitcode: int | None = None

    def join(self, timeout: float | None = None) -> None:
        if not self.hung:
            self.exitcode = 0


class FakeWorker:
    pid = 4321

    def __init__(self, hung: bool = False) -> None:
        self.process = FakeProcess(hung)
        self.terminated = self.killed = self.joined = False

    @property
    def exitcode(self) -> int | None:
        return self.process.exitcode

    def is_alive(self, timeout: float) -> bool:
        signal.raise_signal(signal.SIGTERM)  # the supervisor told to stop
        return True

    def terminate(self) -> None:
        self.terminated = True

    def kill(self) -> None:
        self.killed = True
        self.process.exitcode = -signal.SIGKILL

    def join(self) -> None:
        assert self.process.exitcode is not None, "waiting forever for a hung worker"
        self.joined = True


def test_a_worker_failing_to_start_stops_those_started(monkeypatch: pytest.MonkeyPatch) -> None:
    started: list[FakeWorker] = []

    def start(config: Config, *_: object) -> FakeWorker:
        if started:
            raise OSError("cannot start a process")
        started.append(FakeWorker())
        return started[-1]

    monkeypatch.setattr(workers, "_start", start)
    handler = signal.getsignal(signal.SIGTERM)
    with pytest.raises(OSError, match="cannot start a process"):
        workers.run_workers(config_for(free_port()), 2)
    assert started[0].terminated and started[0].joined
    assert signal.getsignal(signal.SIGTERM) is handler


def test_a_worker_not_stopping_when_told_is_killed(monkeypatch: pytest.MonkeyPatch) -> None:
    started = [FakeWorker(), FakeWorker(hung=True)]
    queue = iter(started)
    monkeypatch.setattr(workers, "_start", lambda config, *_: next(queue))
    monkeypatch.setattr(workers, "CHECK_EVERY", 0.01)
    monkeypatch.setattr(workers, "STOP_WAIT", 0.05)
    handler = signal.getsignal(signal.SIGTERM)
    assert workers.run_workers(config_for(free_port()), 2) == 0
    assert [(w.terminated, w.killed, w.joined) for w in started] == [(True, False, True), (True, True, True)]
    assert signal.getsignal(signal.SIGTERM) is handler
