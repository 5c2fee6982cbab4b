"""How many PostgreSQL connections one `supalite serve` worker holds: at rest, during a
burst of requests to every service (peak), and after it.

    .venv/bin/python -m tests.core.measure_connections --workers 1 4

starts an embedded PostgreSQL and, for each worker count, a server on a fresh copy of the
test template; every backend of the server's database is attributed to its worker through
its client port (psutil). `--source DIR` runs another checkout of `server/` (the figures
before a change: `git archive <rev> server | tar -x -C DIR`).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import uuid
from collections import Counter
from typing import Any

import httpx
import psutil
import psycopg
from psycopg.conninfo import conninfo_to_dict

from tests import harness
from tests.realtime.support import PhoenixClient

BURST = 40  # concurrent requests per service


def census(owner_url: str, dbname: str, server_pid: int) -> dict[str, Any]:
    """The database's client backends, per worker and per (user, application_name)."""
    with psycopg.connect(owner_url, autocommit=True) as conn:
        rows = conn.execute(
            "select client_port, usename, coalesce(nullif(application_name, ''), '-') from pg_stat_activity"
            " where datname = %s and backend_type = 'client backend' and pid <> pg_backend_pid()",
            [dbname]).fetchall()
    pg_port = int(conninfo_to_dict(owner_url).get("port") or 5432)
    worker_of: dict[int, int] = {}
    root = psutil.Process(server_pid)
    workers = [p for p in root.children(recursive=True) if "postgres" not in p.name()] or [root]
    for proc in [root, *workers]:
        try:
            for c in proc.net_connections(kind="tcp"):
                if c.raddr and c.raddr.port == pg_port:
                    worker_of[c.laddr.port] = proc.pid
        except psutil.Error:
            pass
    per_worker = Counter(worker_of.get(port or -1, 0) for port, _, _ in rows)
    kinds = Counter(f"{user} / {app}" for _, user, app in rows)
    return {"total": len(rows), "per_worker": sorted(per_worker.values(), reverse=True), "kinds": dict(kinds)}


async def burst(server: harness.LiveServer) -> None:
    """Requests of every service at once: REST, auth, storage, realtime."""
    anon = {"apikey": server.anon_key}
    service = {"apikey": server.service_key, "authorization": f"Bearer {server.service_key}"}
    bucket = f"census-{uuid.uuid4().hex[:6]}"
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        res = await http.post("/storage/v1/bucket", headers=service, json={"id": bucket, "name": bucket, "public": True})
        assert res.status_code == 200, res.text
        users = await asyncio.gather(*(http.post("/auth/v1/signup", headers=anon, json={
            "email": f"census-{uuid.uuid4().hex[:8]}@example.com", "password": "census-password-1"}) for _ in range(4)))
        tokens = [u.json()["access_token"] for u in users]
        sockets = [await PhoenixClient.connect(server.url, server.anon_key) for _ in range(4)]

        async def realtime(client: PhoenixClient, i: int) -> None:
            await client.join("realtime:census", {"broadcast": {"self": True}, "presence": {"key": f"k{i}"}})
            await client.push("realtime:census", "broadcast", {"type": "broadcast", "event": "e", "payload": {"i": i}})

        calls = [
            *(http.get("/rest/v1/courses?select=*", headers=anon) for _ in range(BURST)),
            *(http.get("/auth/v1/user", headers={**anon, "authorization": f"Bearer {tokens[i % 4]}"})
              for i in range(BURST)),
            *(http.get("/storage/v1/bucket", headers=service) for _ in range(BURST)),
            *(http.post(f"/storage/v1/object/{bucket}/f{i}.txt", headers={**service, "content-type": "text/plain"},
                        content=b"x" * 100) for i in range(BURST // 4)),
            *(realtime(s, i) for i, s in enumerate(sockets)),
        ]
        results = await asyncio.gather(*calls)
        bad = [(r.request.url.path, r.status_code, r.text[:300]) for r in results
               if isinstance(r, httpx.Response) and r.status_code >= 300]
        assert not bad, bad
        for s in sockets:
            await s.close()


async def settled(owner_url: str, dbname: str, pid: int, quiet: float = 1.0, deadline: float = 30.0) -> dict[str, Any]:
    """The census once it has not changed for `quiet` seconds: every worker started (the
    server answers as soon as its first worker does)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + deadline
    last = census(owner_url, dbname, pid)
    since = loop.time()
    while loop.time() - since < quiet and loop.time() < end:
        await asyncio.sleep(0.1)
        now = census(owner_url, dbname, pid)
        if now != last:
            last, since = now, loop.time()
    return last


async def measure(server: harness.LiveServer, owner_url: str, dbname: str) -> dict[str, Any]:
    pid = server.process.pid
    rest = await settled(owner_url, dbname, pid)
    peak: dict[str, Any] = rest
    done = asyncio.Event()

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            now = await asyncio.to_thread(census, owner_url, dbname, pid)
            if now["total"] > peak["total"]:
                peak = now
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    try:
        for _ in range(3):
            await burst(server)
    finally:
        done.set()
        await sampler
    return {"at rest": rest, "peak": peak, "after": census(owner_url, dbname, pid)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--source", help="a checkout whose server/ to run instead of this one")
    args = parser.parse_args()
    env = {"PYTHONPATH": args.source} if args.source else {}
    for owner_url in harness.session_cluster():
        harness.build_template(owner_url)
        for workers in args.workers:
            dbname = harness.unique_name("t_census")
            url = harness.create_database_from_template(owner_url, dbname)
            server = harness.start_server(url, args=["--no-migrate", "--workers", str(workers)], extra_env=env)
            try:
                figures = asyncio.run(measure(server, owner_url, dbname))
            finally:
                server.stop()
                harness.drop_database(owner_url, dbname)
            print(json.dumps({"workers": workers, **figures}, indent=1))


if __name__ == "__main__":
    main()
