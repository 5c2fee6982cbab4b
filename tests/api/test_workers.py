"""server.serve.workers: `supalite serve --workers 2` gives each worker a listening socket of its own
(connections spread over both), replaces a worker that dies, and stops them all on SIGTERM."""

from __future__ import annotations

import os
import signal
import time

import httpx
import psutil

from tests import harness

CLIENTS = 20  # all on one worker by chance: 2 x 2^-20


def workers_of(server: harness.LiveServer) -> list[psutil.Process]:
    """The worker processes: the children multiprocessing spawned (not its resource tracker,
    not the embedded PostgreSQL)."""
    workers = []
    for child in psutil.Process(server.process.pid).children():
        try:
            if "spawn_main" in " ".join(child.cmdline()):
                workers.append(child)
        except psutil.Error:  # gone, or dead and not yet reaped by the supervisor
            pass
    return workers


def wait_for(condition, what: str, timeout: float = 30):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def test_connections_spread_over_the_workers_and_a_dead_worker_is_replaced() -> None:
    server = harness.start_server(None, args=["--workers", "2"], extra_env={"SUPALITE_DB_POOL_SIZE": "4"})
    clients = [httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=30) for _ in range(CLIENTS)]
    try:
        workers = wait_for(lambda: len(workers_of(server)) == 2 and workers_of(server), "two workers")
        for client in clients:  # each holds its keep-alive connection open
            assert client.get("/rest/v1/books?select=id&limit=1").status_code == 200
        held = {w.pid: sum(1 for c in w.net_connections(kind="tcp")
                           if c.status == psutil.CONN_ESTABLISHED and c.laddr.port == server.settings.port)
                for w in workers}
        assert sum(held.values()) == CLIENTS and all(held.values()), held

        victim = workers[0]
        os.kill(victim.pid, signal.SIGKILL)
        replaced = wait_for(lambda: len(workers_of(server)) == 2 and victim.pid not in {w.pid for w in workers_of(server)},
                            "a worker in the dead one's place")
        assert replaced
        for _ in range(CLIENTS):  # fresh connections reach a live worker, never the dead one's socket
            with httpx.Client(base_url=server.url, headers={"apikey": server.anon_key}, timeout=30) as fresh:
                wait_for(lambda fresh=fresh: fresh.get("/rest/v1/books?select=id&limit=1").status_code == 200,
                         "an answer")
    finally:
        for client in clients:
            client.close()
        try:
            remaining = workers_of(server)
        finally:
            server.stop()
    assert server.process.returncode == 0
    _, alive = psutil.wait_procs(remaining, timeout=10)
    assert alive == []  # SIGTERM to the supervisor stops every worker
