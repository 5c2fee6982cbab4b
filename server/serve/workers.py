"""`supalite serve --workers N`: N uvicorn worker processes, each listening on a socket of
its own in one SO_REUSEPORT group.

uvicorn's own supervisor binds one socket in the parent and shares it with every worker:
whichever worker wakes first accepts every pending connection. Measured with the REST bench
(10 keep-alive connections, 2 workers): all 10 on one worker, the other idle, and p99 in the
hundreds of milliseconds. With a socket per worker the kernel spreads connections over the
workers by their addresses.

Otherwise the supervisor keeps uvicorn's behaviour, with uvicorn's worker process class (its
health-check pipe, its graceful stop): a worker that dies or stops answering its health
check is replaced, one that fails to start stops the server, and SIGINT/SIGTERM stop every
worker (each finishing its requests within uvicorn's graceful-shutdown timeout).
"""

from __future__ import annotations

import logging
import signal
import socket
import sys
import threading
import time
from typing import Any

from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.supervisors.multiprocess import Process

from server.core.config import ConfigError

log = logging.getLogger("uvicorn.error")
CHECK_EVERY = 0.5  # seconds between two rounds of health checks (uvicorn's)
# Seconds the workers get to stop once told to (their graceful shutdown is bounded by less);
# one still running then is hung, and killed: the supervisor returns, PostgreSQL is stopped.
STOP_WAIT = 10.0


def reuse_port_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to host:port in the port's SO_REUSEPORT group (not listening yet)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, port))
    except BaseException:
        sock.close()
        raise
    return sock


def claim_port(port: int) -> socket.socket | None:
    """Held by the supervisor while it serves: a second one for the same port fails here
    instead of joining this one's SO_REUSEPORT group, which the kernel lets any process of
    the same user join (`check_port_free` ran before the embedded PostgreSQL started, and
    while no worker listens yet the placeholder alone does not refuse it). An abstract Unix
    socket name (Linux), released when the process ends however it ends."""
    if not sys.platform.startswith("linux"):
        return None
    claim = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        claim.bind(f"\0supalite-serve-port-{port}")
    except BaseException:
        claim.close()
        raise
    return claim


class Worker(Process):
    """uvicorn's worker process, serving on a socket of its own instead of the parent's."""

    def target(self, sockets: list[socket.socket] | None = None) -> None:
        try:
            sock = reuse_port_socket(self.config.host, self.config.port)
        except OSError as exc:  # taken by a socket outside the group: another start would fail too
            log.error("cannot listen on %s:%d: %s", self.config.host, self.config.port, exc.strerror)
            sys.exit(STARTUP_FAILURE)
        super().target([sock])


def run_workers(config: Config, count: int) -> int:
    """Serve with `count` workers until SIGINT or SIGTERM; the exit status."""
    claim = None
    try:
        claim = claim_port(config.port)
        # Bound in the group but never listening, so it gets no connections: it holds the
        # port while a worker is being replaced.
        placeholder = reuse_port_socket(config.host, config.port)
    except OSError as exc:
        if claim is not None:
            claim.close()
        raise ConfigError(f"cannot listen on {config.host}:{config.port}: {exc.strerror}") from None
    stopping = threading.Event()
    status = 0

    def stop(signum: int, frame: Any) -> None:
        log.info("Received %s, exiting.", signal.Signals(signum).name)
        stopping.set()

    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    workers: list[Worker] = []
    try:
        for _ in range(count):  # inside `try`: a failed start stops those already started
            workers.append(_start(config))
        while not stopping.wait(CHECK_EVERY):
            for index, worker in enumerate(workers):
                if stopping.is_set() or worker.is_alive(timeout=config.timeout_worker_healthcheck):
                    continue
                worker.kill()  # dead, or hung: not answering its health check
                worker.join()
                if worker.exitcode == STARTUP_FAILURE:  # would fail the same way again
                    log.error("Worker process [%s] failed to start, stopping.", worker.pid)
                    status = STARTUP_FAILURE
                    stopping.set()
                    break
                log.warning("Worker process [%s] died; starting another.", worker.pid)
                workers[index] = _start(config)
    finally:
        for worker in workers:
            worker.terminate()
        deadline = time.monotonic() + STOP_WAIT
        for worker in workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.exitcode is None:
                log.warning("Worker process [%s] did not stop; killing it.", worker.pid)
                worker.kill()
            worker.join()
        placeholder.close()
        if claim is not None:
            claim.close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return status


def _start(config: Config) -> Worker:
    worker = Worker(config, [])  # its socket is its own, bound in the worker
    worker.start()
    return worker
