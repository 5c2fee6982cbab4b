"""Password sign-ins per second, as a share of what bcrypt allows on this machine, and
refresh-token grants per second, as a share of single-row REST reads.

ratio = sign-ins/s divided by (cores x bcrypt checks/s on one core), both measured in this run:
1.0 would mean the server spends nothing but bcrypt on a sign-in (aim >= 0.8). Refresh grants
(a token row rotated, a session touched, a JWT signed) are divided by GET of one row through
/rest/v1 by the same client at the same concurrency on the same server.

Run: .venv/bin/python bench/auth.py [seconds per phase]
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import bcrypt
import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record
from server.provision.connection import running_database_url
from tests import harness

PASSWORD = "bench-password"
USERS = 16
CONCURRENCY = int(os.environ.get("BENCH_CONCURRENCY", "8"))


def bcrypt_checks_per_second(seconds: float) -> float:
    hashed = bcrypt.hashpw(PASSWORD.encode(), bcrypt.gensalt(10))
    done, started = 0, time.perf_counter()
    while time.perf_counter() - started < seconds:
        bcrypt.checkpw(PASSWORD.encode(), hashed)
        done += 1
    return done / (time.perf_counter() - started)


async def hammer(seconds: float, make_request) -> float:
    """Run CONCURRENCY workers issuing requests for `seconds`; successful requests per second."""
    done = 0
    deadline = time.perf_counter() + seconds

    async def worker(index: int) -> None:
        nonlocal done
        while time.perf_counter() < deadline:
            if await make_request(index):
                done += 1

    started = time.perf_counter()
    await asyncio.gather(*(worker(i) for i in range(CONCURRENCY)))
    return done / (time.perf_counter() - started)


def create_read_table(server: harness.LiveServer) -> None:
    """One row anon may read, for the REST baseline (the project is empty)."""
    import psycopg

    owner_url = running_database_url(server.settings)
    assert owner_url is not None
    with psycopg.connect(owner_url, autocommit=True) as conn:
        conn.execute("create table public.bench_rows (id int primary key, title text not null)")
        conn.execute("insert into public.bench_rows values (1, 'one row')")
        conn.execute("grant select on public.bench_rows to anon")
        conn.execute("notify pgrst, 'reload schema'")


async def rest_reads(server: harness.LiveServer, seconds: float) -> float:
    headers = {"apikey": server.anon_key}
    limits = httpx.Limits(max_connections=CONCURRENCY * 2)
    async with httpx.AsyncClient(base_url=f"{server.url}/rest/v1", headers=headers, limits=limits, timeout=60) as api:
        async def read(index: int) -> bool:
            response = await api.get("/bench_rows?select=id,title&id=eq.1")
            return response.status_code == 200

        deadline = time.monotonic() + 10
        while not await read(0):  # the schema cache reloads
            assert time.monotonic() < deadline, "bench_rows is not readable through /rest/v1"
            await asyncio.sleep(0.05)
        await hammer(1.0, read)
        return await hammer(seconds, read)


async def run(server: harness.LiveServer, seconds: float) -> tuple[float, float]:
    headers = {"apikey": server.anon_key}
    admin = {"apikey": server.service_key, "Authorization": f"Bearer {server.service_key}"}
    limits = httpx.Limits(max_connections=CONCURRENCY * 2)
    async with httpx.AsyncClient(base_url=f"{server.url}/auth/v1", headers=headers, limits=limits, timeout=60) as api:
        emails = [f"bench-{i}-{time.time_ns()}@example.com" for i in range(USERS)]
        for email in emails:
            created = await api.post("/admin/users", headers=admin,
                                     json={"email": email, "password": PASSWORD, "email_confirm": True})
            created.raise_for_status()
        refresh_tokens: dict[int, str] = {}

        async def sign_in(index: int) -> bool:
            response = await api.post("/token?grant_type=password",
                                      json={"email": emails[index % USERS], "password": PASSWORD})
            if response.status_code == 200:
                refresh_tokens[index] = response.json()["refresh_token"]
            return response.status_code == 200

        async def refresh(index: int) -> bool:
            response = await api.post("/token?grant_type=refresh_token", json={"refresh_token": refresh_tokens[index]})
            if response.status_code != 200:
                return False
            refresh_tokens[index] = response.json()["refresh_token"]
            return True

        await hammer(1.0, sign_in)  # warm up: connections, prepared statements, thread pool
        sign_ins = await hammer(seconds, sign_in)
        refreshes = await hammer(seconds, refresh)
    return sign_ins, refreshes


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    data_dir = harness.scratch_dir("supalite-bench-auth-") / "data"
    # An empty project: the platform schema only, so app triggers do not weigh on the figures.
    project = harness.scratch_dir("supalite-bench-project-")
    server = harness.start_server(None, data_dir=data_dir,
                                  extra_env={"SUPALITE_DB_PORT": "0", "SUPALITE_PROJECT_DIR": str(project)})
    try:
        per_core = bcrypt_checks_per_second(3.0)
        sign_ins, refreshes = asyncio.run(run(server, seconds))
        create_read_table(server)
        reads = asyncio.run(rest_reads(server, seconds))
    finally:
        server.stop()
        subprocess.run(["rm", "-rf", str(data_dir.parent), str(project)], check=False)
    ratio = sign_ins / (cores * per_core)
    print(f"bcrypt (cost 10) checks/s on one core: {per_core:.1f}   cores: {cores}")
    print(f"password sign-ins/s:                   {sign_ins:.1f}")
    print(f"sign-in ratio:                         {ratio:.2f}   (sign-ins/s / (cores x bcrypt/s); aim >= 0.8)")
    print(f"refresh grants/s:                      {refreshes:.1f}")
    print(f"REST GET single row/s, same client:    {reads:.1f}")
    print(f"refresh / GET single row:              {refreshes / reads:.2f}")
    record("auth", "password sign-ins", f"{sign_ins:.1f}/s", ratio, f"{cores} x {per_core:.1f} bcrypt checks/s", ">= 0.8")
    record("auth", "refresh-token grants", f"{refreshes:.1f}/s", refreshes / reads,
           f"GET single row {reads:.0f}/s, same client")


if __name__ == "__main__":
    main()
