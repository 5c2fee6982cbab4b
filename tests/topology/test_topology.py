"""The production topology (tests/topology/stack.py: docker-compose.yml's stack as local
processes) with real clients: supabase-js through nginx (tests/js/topology.suite.mjs), the
replicas' shared migration, PgBouncer in transaction mode, auth mail over SMTP; the suite ends
with a replica killed mid-traffic, so it runs last."""

from __future__ import annotations

import re
import shutil
import subprocess
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
    pytest.mark.skipif(not (stack.harness.APP / "web" / "dist" / "index.html").exists(), reason="learning/web/dist is not built"),
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


@needs_node
def test_supabase_js_across_the_replicas(topology: stack.Topology) -> None:
    """Last: its last test SIGKILLs one replica (its process group) mid-traffic."""
    victim, survivor = topology.replicas
    counts = run_node_suite("topology.suite.mjs", topology,  # type: ignore[arg-type]
                            TOPOLOGY_ACCESS_LOG=str(topology.access_log),
                            TOPOLOGY_SIGN_IN_LIMIT=str(stack.SIGN_IN_LIMIT),
                            TOPOLOGY_VICTIM_PGID=str(victim.process.pid), TOPOLOGY_SURVIVOR=survivor.address)
    assert counts["pass"] == 7 and counts["fail"] == 0, counts
    assert victim.process.wait(10) == -9
