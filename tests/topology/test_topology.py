"""The production topology (tests/topology/stack.py: docker-compose.yml's stack as local
processes) with real clients: supabase-js through nginx (tests/js/topology.suite.mjs), the
replicas' shared migration, PgBouncer in transaction mode, auth mail over SMTP, and a replica
killed mid-traffic (last: the stack has one replica left after it)."""

from __future__ import annotations

import re
import shutil
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx
import psycopg
import pytest

from tests.js.node_suite import needs_node, run_node_suite
from tests.topology import stack

pytestmark = [
    pytest.mark.skipif(not stack.PG15_BIN.exists(), reason="Debian's postgresql-15 is not installed"),
    pytest.mark.skipif(not stack.PGBOUNCER.exists(), reason="Debian's pgbouncer is not installed"),
    pytest.mark.skipif(shutil.which("nginx") is None and not stack.nginx.NGINX.exists(), reason="nginx is not installed"),
    pytest.mark.skipif(not (stack.harness.REPO / "web" / "dist" / "index.html").exists(), reason="web/dist is not built"),
]


@pytest.fixture(scope="module")
def topology() -> Iterator[stack.Topology]:
    with stack.running_topology() as running:
        yield running


def test_replicas_started_together_migrate_the_empty_database_once(topology: stack.Topology) -> None:
    logs = [replica.log() for replica in topology.replicas]
    applied = [log for log in logs if "platform schema: applied" in log]
    assert len(applied) == 1, logs
    assert sum(log.count("Running upgrade  -> 0001") for log in logs) == 1
    with psycopg.connect(topology.db_url) as conn:
        assert conn.execute("select count(*) from supalite.alembic_version").fetchone() == (1,)


def _bouncer_pools(topology: stack.Topology) -> list[list[str]]:
    """PgBouncer's SHOW POOLS (its admin console speaks only the simple protocol: psql)."""
    admin = psycopg.conninfo.make_conninfo(topology.bouncer_url, dbname="pgbouncer")
    out = subprocess.run(["psql", admin, "-AtF", "|", "-c", "SHOW POOLS"], capture_output=True, text=True,
                         timeout=30, check=True).stdout
    return [line.split("|") for line in out.splitlines()]


def test_pools_go_through_pgbouncer_and_listen_goes_direct(topology: stack.Topology) -> None:
    headers = {"apikey": topology.anon_key}
    for _ in range(8):  # the site's tables, read as anon, on every worker (prepared statements off)
        assert httpx.get(f"{topology.url}/rest/v1/books?select=id&limit=1", headers=headers).status_code == 200
    pools = {(row[0], row[1]) for row in _bouncer_pools(topology)}
    assert {(stack.DATABASE, "authenticator"), (stack.DATABASE, "postgres")} <= pools, pools
    with psycopg.connect(topology.db_url) as conn:
        listeners = conn.execute("select count(*) from pg_stat_activity where application_name = 'supalite listener'"
                                 " and datname = %s", [stack.DATABASE]).fetchone()
    assert listeners == (stack.WORKERS * len(topology.replicas),)


@needs_node
def test_supabase_js_across_the_replicas(topology: stack.Topology) -> None:
    counts = run_node_suite("topology.suite.mjs", topology,  # type: ignore[arg-type]
                            TOPOLOGY_ACCESS_LOG=str(topology.access_log),
                            TOPOLOGY_SIGN_IN_LIMIT=str(stack.SIGN_IN_LIMIT))
    assert counts["pass"] == 6 and counts["fail"] == 0, counts


def test_recovery_mail_goes_over_smtp_with_links_to_the_proxy(topology: stack.Topology) -> None:
    email = f"recover-{uuid.uuid4().hex[:8]}@example.com"
    headers = {"apikey": topology.anon_key, "X-Forwarded-For": "10.200.0.1"}
    signup = httpx.post(f"{topology.url}/auth/v1/signup", headers=headers,
                        json={"email": email, "password": "topology-password-1"})
    assert signup.status_code == 200, signup.text
    assert httpx.post(f"{topology.url}/auth/v1/recover", headers=headers, json={"email": email}).status_code == 200
    mail = topology.mailbox.wait_for(email)
    body = mail.get_payload(decode=True) if not mail.is_multipart() else mail.get_payload(0).get_payload(decode=True)
    link = re.search(rb"(http://[^\s\"'<>]+/auth/v1/verify\?[^\s\"'<>]+)", body)
    assert link, body
    url = link.group(1).decode().replace("&amp;", "&")
    assert url.startswith(topology.url)  # the public URL: nginx, not a replica
    answer = httpx.get(url, follow_redirects=False)
    assert answer.status_code == 303, answer.text
    fragment = parse_qs(urlsplit(answer.headers["location"]).fragment)
    assert fragment["type"] == ["recovery"] and fragment["access_token"]


def test_a_replica_killed_mid_traffic_loses_only_requests_in_flight(topology: stack.Topology) -> None:
    """Four clients read and write in a loop, retrying a failed request once; one replica is
    SIGKILLed (with its workers) meanwhile. Only requests in flight at the kill may fail, their
    retry succeeds, and from then on the survivor answers everything."""
    victim, survivor = topology.replicas
    service = {"apikey": topology.service_key, "Authorization": f"Bearer {topology.service_key}"}
    first_failures: list[str] = []
    retries_failed: list[str] = []
    served_after_kill: list[str] = []
    killed = threading.Event()
    stop = threading.Event()

    def client(n: int) -> None:
        with httpx.Client(base_url=topology.url, headers=service, timeout=10) as http:
            i = 0
            while not stop.is_set():
                i += 1
                request = (("GET", "/rest/v1/books?select=id&limit=1", None) if i % 2 else
                           ("POST", "/storage/v1/bucket", {"name": f"kill-{n}-{i}-{uuid.uuid4().hex[:6]}"}))
                for attempt in range(2):
                    after_kill = killed.is_set()
                    try:
                        response = http.request(request[0], request[1], json=request[2])
                        ok = response.status_code == 200
                        what = f"{request[0]} {request[1]}: {response.status_code} {response.text[:200]}"
                    except httpx.HTTPError as exc:
                        ok, what = False, f"{request[0]} {request[1]}: {exc!r}"
                    if ok:
                        if after_kill:
                            served_after_kill.append(response.headers.get("x-upstream", ""))
                        break
                    (first_failures if attempt == 0 else retries_failed).append(what)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    time.sleep(1.5)
    victim.kill()
    killed.set()
    time.sleep(3)
    stop.set()
    for thread in threads:
        thread.join(30)
    print(f"killed mid-traffic: {len(first_failures)} requests failed once, {len(served_after_kill)} answered after")
    assert retries_failed == [], retries_failed
    assert len(first_failures) <= len(threads), first_failures  # at most one in flight per client
    assert len(served_after_kill) > 20
    tail = served_after_kill[len(threads):]  # past the kill's moment, only the survivor answers
    assert tail and all(upstream.endswith(survivor.address) for upstream in tail), set(tail)
