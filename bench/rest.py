"""REST throughput against raw PostgreSQL, measured in the same run.

ratio = single-row GET req/s through /rest/v1 divided by pgbench TPS of the same SQL
transaction (role + claims + query, as authenticator) on the same database. PostgREST
reaches about 0.73 on a 2-vCPU box; the aim here is >= 0.6 at the best worker count, with
p95 under 20 ms at 10 connections. Also reports a two-level embed GET, POST of one row,
PATCH and RPC. The load comes from a second process (keep-alive HTTP/1.1 on loopback).

Run: .venv/bin/python bench/rest.py [seconds per phase] [worker counts, e.g. 1,2]
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

CONNECTIONS = int(os.environ.get("BENCH_CONNECTIONS", "10"))

SINGLE_ROW = "/rest/v1/fx_books?select=id,title&id=eq.1"
PGBENCH_SQL = """BEGIN;
select set_config('role', 'anon', true), set_config('request.jwt.claims', '{"iss":"supabase-demo","role":"anon","exp":1983812996}', true), set_config('request.method', 'GET', true), set_config('request.path', '/fx_books', true), set_config('request.headers', '{"host":"127.0.0.1","accept":"*/*"}', true), set_config('search_path', '"public", "extensions"', true);
SELECT NULL::bigint AS total, pg_catalog.count(_pgrst_t) AS page_total, coalesce(json_agg(_pgrst_t), '[]')::text AS body, nullif(current_setting('response.headers', true), '') AS headers, nullif(current_setting('response.status', true), '') AS status FROM (SELECT "fx_books"."id" AS "id", "fx_books"."title" AS "title" FROM "public"."fx_books" AS "fx_books" WHERE "fx_books"."id" = '1') AS _pgrst_t;
COMMIT;
"""


# -- the load generator (runs in its own process) --------------------------------------------

async def _client(host: str, port: int, request: bytes, deadline: float, latencies: list[float], errors: list[int]) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    while time.perf_counter() < deadline:
        started = time.perf_counter()
        writer.write(request)
        status_line = await reader.readline()
        length = 0
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value.strip())
        if length:
            await reader.readexactly(length)
        latencies.append(time.perf_counter() - started)
        if not status_line.split(b" ")[1].startswith(b"2"):
            errors.append(1)
    writer.close()


def load_main(args: list[str]) -> None:
    url, method, path, key, body, conns, seconds = args
    host, port = url.split("://")[1].split(":")
    payload = body.encode()
    head = (f"{method} {path} HTTP/1.1\r\nHost: {host}\r\napikey: {key}\r\nAuthorization: Bearer {key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n\r\n").encode()
    latencies: list[float] = []
    errors: list[int] = []

    async def go() -> float:
        deadline = time.perf_counter() + float(seconds)
        started = time.perf_counter()
        await asyncio.gather(*(_client(host, int(port), head + payload, deadline, latencies, errors) for _ in range(int(conns))))
        return time.perf_counter() - started

    elapsed = asyncio.run(go())
    latencies.sort()
    p95 = latencies[int(len(latencies) * 0.95)] if latencies else 0.0
    print(json.dumps({"rps": len(latencies) / elapsed, "p95_ms": p95 * 1000, "errors": len(errors)}))


def run_load(url: str, method: str, path: str, key: str, body: str, seconds: float) -> dict:
    out = subprocess.run([sys.executable, __file__, "--load", url, method, path, key, body, str(CONNECTIONS), str(seconds)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


# -- pgbench of the same transaction ------------------------------------------------------------

def pgbench_tps(database_url: str, password: str, seconds: float) -> float:
    from psycopg.conninfo import conninfo_to_dict

    from server.db.embedded import bin_dir

    parts = conninfo_to_dict(database_url)
    script = Path(tempfile.mkdtemp(prefix="bench-rest-")) / "tx.sql"
    script.write_text(PGBENCH_SQL)
    binary = str(bin_dir() / "pgbench") if (bin_dir() / "pgbench").exists() else "pgbench"
    env = dict(os.environ, PGPASSWORD=password)
    out = subprocess.run([binary, "-n", "-M", "prepared", "-c", str(CONNECTIONS), "-j", "2", "-T", str(int(seconds)),
                          "-h", parts.get("host", "127.0.0.1"), "-p", str(parts.get("port", 5432)), "-U", "authenticator",
                          "-f", str(script), parts["dbname"]], capture_output=True, text=True, env=env)
    for line in out.stdout.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(out.stdout + out.stderr)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    worker_counts = [int(w) for w in (sys.argv[2] if len(sys.argv) > 2 else "1,2").split(",")]
    from server.db.database import authenticator_password
    from server.db.embedded import EmbeddedPostgres
    from tests import harness
    from tests.rest import fixture

    pg = EmbeddedPostgres(harness.scratch_dir("bench-rest-pg-") / "data", port=0, fast_unsafe=True)
    owner = pg.start()
    try:
        db = fixture.create_database(owner, "bench_rest")
        password = authenticator_password(harness.base_settings(db))
        tps = pgbench_tps(db, password, seconds)
        print(f"pgbench, same SQL transaction, {CONNECTIONS} connections: {tps:.0f} tps")
        best = None
        for workers in worker_counts:
            server = harness.start_server(db, args=["--no-migrate"], extra_env={
                "SUPALITE_WORKERS": str(workers), "SUPALITE_DB_POOL_SIZE": str(max(4, CONNECTIONS // workers + 2))})
            try:
                fixture.wait_visible(server.url, server.anon_key)
                time.sleep(1.0)
                key, svc = server.anon_key, server.service_key
                run_load(server.url, "GET", SINGLE_ROW, key, "", 1.0)  # warm up prepared statements
                single = run_load(server.url, "GET", SINGLE_ROW, key, "", seconds)
                ratio = single["rps"] / tps
                print(f"\n{workers} worker(s):")
                print(f"  GET single row      {single['rps']:8.0f} req/s  p95 {single['p95_ms']:5.1f} ms   ratio to pgbench {ratio:.2f}")
                phases = [
                    ("GET two-level embed", "GET", "/rest/v1/fx_authors?select=name,fx_books!author_id(title,fx_chapters(title))&id=eq.1", key, ""),
                    ("POST one row", "POST", "/rest/v1/fx_reviews", svc, '{"book_id": 2, "stars": 4}'),
                    ("PATCH one row", "PATCH", "/rest/v1/fx_books?id=eq.2", svc, '{"pages": 387}'),
                    ("RPC (POST)", "POST", "/rest/v1/rpc/fx_add", key, '{"a": 1, "b": 2}'),
                ]
                for label, method, path, k, body in phases:
                    r = run_load(server.url, method, path, k, body, seconds)
                    print(f"  {label:19} {r['rps']:8.0f} req/s  p95 {r['p95_ms']:5.1f} ms" + (f"  ({r['errors']} errors)" if r["errors"] else ""))
                best = max(best or 0.0, ratio)
            finally:
                server.stop()
        print(f"\nbest ratio GET single row / pgbench: {best:.2f} (PostgREST ~0.73; aim >= 0.6)")
    finally:
        pg.stop()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--load":
        load_main(sys.argv[2:])
    else:
        main()
