"""Soak: many concurrent clients of mixed REST, auth and storage traffic for a while.

Not a test: it prints what a person reads before exposing the server. Every answer is
counted by status class, along with timeouts and connection errors, and the latencies'
p50/p99 per kind of request. Zero 5xx and zero timeouts are expected.

The server is a fresh `supalite serve --seed` (the site's demo data) on its own embedded
PostgreSQL. The mix, per client loop: REST reads as anon and as a signed-in learner (with
an embed), an RPC, the learner's own user record, a refresh-token grant now and then, a
password sign-in rarely (bcrypt is meant to be slow), a public cover download, and an
upload + download + delete of a small object as the service role.

Then, saturation: slow RPCs (pg_sleep, as the signed-in learner's searches would be) from
twice as many clients as the pool has connections, without pause, while one client reads
one row again and again as the same learner; the read's p50/p99 is printed. Each slow call
is served too (their p99 shows the line they wait in).

Run: .venv/bin/python bench/soak.py [clients=200] [seconds=60] [saturation seconds=15]
"""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx
import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record
from server.provision.connection import running_database_url
from tests import harness

LEARNER = {"email": "eleve@example.com", "password": "eleve-demo-123"}
TIMEOUT = 10.0


class Tally:
    def __init__(self) -> None:
        self.statuses: Counter[str] = Counter()
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.five_xx: list[str] = []

    def record(self, kind: str, started: float, response: httpx.Response | None, failure: str = "") -> None:
        elapsed = time.perf_counter() - started
        if response is None:
            self.statuses[failure] += 1
            return
        self.latencies[kind].append(elapsed)
        self.statuses[f"{response.status_code // 100}xx"] += 1
        if response.status_code >= 500 and len(self.five_xx) < 10:
            self.five_xx.append(f"{kind}: {response.status_code} {response.text[:200]}")


async def call(client: httpx.AsyncClient, tally: Tally, kind: str, method: str, path: str, **kwargs: object) -> httpx.Response | None:
    started = time.perf_counter()
    try:
        response = await client.request(method, path, **kwargs)  # type: ignore[arg-type]
    except httpx.TimeoutException:
        tally.record(kind, started, None, "timeout")
        return None
    except httpx.HTTPError as exc:
        tally.record(kind, started, None, f"error {type(exc).__name__}")
        return None
    tally.record(kind, started, response)
    return response


async def client_loop(index: int, server: harness.LiveServer, session: dict[str, str], tally: Tally,
                      stop_at: float) -> None:
    anon = {"apikey": server.anon_key}
    service = {"apikey": server.service_key, "authorization": f"Bearer {server.service_key}"}
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)  # one socket per client
    async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT, limits=limits) as client:
        access = session["access_token"]
        refresh = session["refresh_token"]
        n = 0
        while time.monotonic() < stop_at:
            n += 1
            user = {**anon, "authorization": f"Bearer {access}"}
            await call(client, tally, "rest anon courses", "GET", "/rest/v1/courses?select=id,title&order=id", headers=anon)
            await call(client, tally, "rest learner embed", "GET",
                       "/rest/v1/courses?select=id,title,course_content(id,title)&limit=5", headers=user)
            await call(client, tally, "rest rpc", "POST", "/rest/v1/rpc/get_site_contact", headers=anon, json={})
            await call(client, tally, "auth user", "GET", "/auth/v1/user", headers=user)
            await call(client, tally, "storage public", "GET", "/storage/v1/object/public/covers/" + session["cover"])
            name = f"soak/{index}-{n}.png"
            up = await call(client, tally, "storage upload", "POST", f"/storage/v1/object/covers/{name}",
                            headers={**service, "content-type": "image/png"}, content=os.urandom(2048))
            if up is not None and up.status_code == 200:
                await call(client, tally, "storage download", "GET", f"/storage/v1/object/covers/{name}", headers=service)
                await call(client, tally, "storage delete", "DELETE", f"/storage/v1/object/covers/{name}", headers=service)
            if n % 5 == 0:
                grant = await call(client, tally, "auth refresh", "POST", "/auth/v1/token?grant_type=refresh_token",
                                   headers=anon, json={"refresh_token": refresh})
                if grant is not None and grant.status_code == 200:
                    access, refresh = grant.json()["access_token"], grant.json()["refresh_token"]
            if random.random() < 0.01:
                await call(client, tally, "auth sign-in", "POST", "/auth/v1/token?grant_type=password",
                           headers=anon, json=LEARNER)


async def soak(server: harness.LiveServer, clients: int, seconds: float) -> Tally:
    anon = {"apikey": server.anon_key}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as setup:
        sessions = []
        for _ in range(clients):  # one session per client (no session limit on this server)
            grant = await setup.post("/auth/v1/token?grant_type=password", headers=anon, json=LEARNER)
            grant.raise_for_status()
            sessions.append(grant.json())
        service = {"apikey": server.service_key, "authorization": f"Bearer {server.service_key}"}
        listed = await setup.post("/storage/v1/object/list/covers", headers=service, json={"prefix": "", "limit": 100})
        covers = [o["name"] for o in listed.json() if o.get("id")]
        if not covers:
            folders = [o["name"] for o in listed.json()]
            inner = await setup.post("/storage/v1/object/list/covers", headers=service,
                                     json={"prefix": folders[0], "limit": 1})
            covers = [f"{folders[0]}/{inner.json()[0]['name']}"]
    for session in sessions:
        session["cover"] = covers[0]
    tally = Tally()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(client_loop(i, server, sessions[i], tally, stop_at) for i in range(clients)))
    return tally


def report(tally: Tally, clients: int, seconds: float) -> None:
    total = sum(tally.statuses.values())
    print(f"clients: {clients}   seconds: {seconds:.0f}   requests: {total}   ({total / seconds:.0f}/s)")
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.statuses.items())))
    print(f"5xx: {sum(v for k, v in tally.statuses.items() if k == '5xx')}   "
          f"timeouts: {tally.statuses.get('timeout', 0)}")
    print(f"{'kind':<22} {'count':>7} {'p50 ms':>8} {'p99 ms':>8}")
    for kind, values in sorted(tally.latencies.items()):
        ordered = sorted(values)
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
        print(f"{kind:<22} {len(values):>7} {statistics.median(values) * 1000:>8.1f} {p99 * 1000:>8.1f}")
    for line in tally.five_xx:
        print("  5xx sample:", line)
    five_xx = sum(v for k, v in tally.statuses.items() if k == "5xx")
    record("soak", f"{clients} clients, {seconds:.0f} s, mixed REST/auth/storage",
           f"{total / seconds:.0f} req/s, {five_xx} 5xx, {tally.statuses.get('timeout', 0)} timeouts", aim="0 5xx")


SLOW_SEARCH = """
create or replace function public.soak_slow_search(seconds float) returns text
language sql as $$ select pg_sleep(seconds)::text $$;
grant execute on function public.soak_slow_search(float) to authenticated;
notify pgrst, 'reload schema';
"""
SLOW_SECONDS = 1.0


async def saturate(server: harness.LiveServer, seconds: float) -> Tally:
    """Slow RPCs from 2 x pool size clients without pause; one client's one-row reads."""
    database_url = running_database_url(server.settings)
    assert database_url, "the server's database is not running"
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(SLOW_SEARCH)
    anon = {"apikey": server.anon_key}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as setup:
        grant = await setup.post("/auth/v1/token?grant_type=password", headers=anon, json=LEARNER)
        grant.raise_for_status()
        course = (await setup.get("/rest/v1/courses?select=id&limit=1", headers=anon)).json()[0]["id"]
    user = {**anon, "authorization": f"Bearer {grant.json()['access_token']}"}
    tally = Tally()
    stop_at = time.monotonic() + seconds

    async def slow_client() -> None:
        async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as client:
            while time.monotonic() < stop_at:
                await call(client, tally, "saturation slow rpc", "POST", "/rest/v1/rpc/soak_slow_search",
                           headers=user, json={"seconds": SLOW_SECONDS})

    async def quick_client() -> None:
        async with httpx.AsyncClient(base_url=server.url, timeout=TIMEOUT) as client:
            await asyncio.sleep(2 * SLOW_SECONDS)  # the pool full and a line formed
            while time.monotonic() < stop_at:
                await call(client, tally, "saturation one-row read", "GET",
                           f"/rest/v1/courses?select=id,title&id=eq.{course}", headers=user)
                await asyncio.sleep(0.05)

    pool = server.settings.db_pool_size
    await asyncio.gather(*(slow_client() for _ in range(2 * pool)), quick_client())
    return tally


def report_saturation(tally: Tally, pool: int, seconds: float) -> None:
    print(f"saturation: {2 * pool} clients calling a {SLOW_SECONDS:.0f} s RPC without pause (pool {pool}), "
          f"one client reading one row, {seconds:.0f} s")
    print("answers: " + ", ".join(f"{k} {v}" for k, v in sorted(tally.statuses.items())))
    quick = sorted(tally.latencies["saturation one-row read"])
    for kind, values in sorted(tally.latencies.items()):
        ordered = sorted(values)
        print(f"{kind:<26} {len(values):>7} {statistics.median(values) * 1000:>8.1f} {percentile(ordered, 0.99) * 1000:>8.1f}")
    if quick:
        record("soak", f"one-row read while {2 * pool} slow RPCs ({SLOW_SECONDS:.0f} s) hold the pool of {pool}",
               f"p50 {statistics.median(quick) * 1000:.1f} ms, p99 {percentile(quick, 0.99) * 1000:.1f} ms",
               aim="p99 < 1 s")


def percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


def main() -> None:
    clients = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 60.0
    saturation = float(sys.argv[3]) if len(sys.argv) > 3 else 15.0
    data_dir = harness.scratch_dir("supalite-soak-") / "data"
    server = harness.start_server(None, data_dir=data_dir, args=["--seed"], extra_env={"SUPALITE_DB_PORT": "0"})
    try:
        tally = asyncio.run(soak(server, clients, seconds))
        saturated = asyncio.run(saturate(server, saturation)) if saturation > 0 else None
    finally:
        server.stop()
        subprocess.run(["rm", "-rf", str(data_dir.parent)], check=False)
    report(tally, clients, seconds)
    if saturated is not None:
        report_saturation(saturated, server.settings.db_pool_size, saturation)


if __name__ == "__main__":
    main()
