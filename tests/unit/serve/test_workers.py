"""server.serve.workers without a server: a worker that cannot bind its socket fails to start
(the supervisor then stops instead of starting another, forever), a second supervisor for
the same port is refused instead of joining the first one's SO_REUSEPORT group, and a
worker that cannot be started stops those already running, and one that does not stop when
told to is killed (the supervisor returns, and the embedded PostgreSQL is stopped)."""

from __future__ import annotations

import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from uvicorn.config import STARTUP_FAILURE, Config

from server.core.config import ConfigError
from server.serve import workers

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the port claim is Linux's")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def config_for(port: int) -> Config:
    return Config("server.serve.app:app_from_environment", factory=True, host="127.0.0.1", port=port)


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


READY_DIR = "SUPALITE_TEST_WORKERS_READY"  # where each sleeping worker says it is set up


class SleepingWorker(workers.Worker):
    """A real worker process that answers the supervisor's health checks and serves nothing."""

    ignores_sigterm = False

    def target(self, sockets: list[socket.socket] | None = None) -> None:
        if self.ignores_sigterm:
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
        threading.Thread(target=self.always_pong, daemon=True).start()
        (Path(os.environ[READY_DIR]) / str(os.getpid())).touch()
        time.sleep(300)


class StubbornWorker(SleepingWorker):
    """One that does not stop when told to: its main thread stuck, as in a C call."""

    ignores_sigterm = True


def stop_supervisor_once(ready: Path, count: int) -> threading.Thread:
    """SIGTERM to this process (the supervisor's) once `count` workers are set up."""

    def wait_then_stop() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if len(list(ready.iterdir())) == count:
                os.kill(os.getpid(), signal.SIGTERM)
                return
            time.sleep(0.05)

    thread = threading.Thread(target=wait_then_stop, daemon=True)
    thread.start()
    return thread


def test_a_worker_failing_to_start_stops_those_started(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(READY_DIR, str(tmp_path))
    started: list[workers.Worker] = []

    def start(config: Config) -> workers.Worker:
        if started:
            raise OSError("cannot start a process")
        started.append(SleepingWorker(config, []))
        started[-1].start()
        return started[-1]

    monkeypatch.setattr(workers, "_start", start)
    handler = signal.getsignal(signal.SIGTERM)
    with pytest.raises(OSError, match="cannot start a process"):
        workers.run_workers(config_for(free_port()), 2)
    assert started[0].exitcode == -signal.SIGTERM  # told to stop, and waited for
    assert signal.getsignal(signal.SIGTERM) is handler


def test_a_worker_not_stopping_when_told_is_killed(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(READY_DIR, str(tmp_path))
    kinds = iter([SleepingWorker, StubbornWorker])
    started: list[workers.Worker] = []

    def start(config: Config) -> workers.Worker:
        worker = next(kinds)(config, [])
        worker.start()
        started.append(worker)
        return worker

    monkeypatch.setattr(workers, "_start", start)
    monkeypatch.setattr(workers, "STOP_WAIT", 2.0)
    handler = signal.getsignal(signal.SIGTERM)
    stopper = stop_supervisor_once(tmp_path, 2)
    assert workers.run_workers(config_for(free_port()), 2) == 0
    stopper.join()
    assert [w.exitcode for w in started] == [-signal.SIGTERM, -signal.SIGKILL]
    assert signal.getsignal(signal.SIGTERM) is handler
