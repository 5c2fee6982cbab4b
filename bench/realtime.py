"""Realtime throughput on loopback.

1. postgres_changes under RLS: SUBSCRIBERS sockets (one user each) subscribe to one table
   whose SELECT policy calls auth.uid(); inserts are made at increasing rates; prints the
   highest rate whose delivery p95 stays under 1 s, as delivered messages per second, next
   to Supabase's published figure for a 2-core instance (about 3,000 msg/s with RLS, p95
   228 ms).
2. broadcast fan-out: SOCKETS sockets on one topic; prints delivered messages per second.

Usage: .venv/bin/python -m bench.realtime [--subscribers 500] [--sockets 1000] [--step-seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
import uuid
from pathlib import Path

import httpx
import orjson
import psycopg
import websockets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record
from tests import harness
from tests.realtime.support import user_token

SUPABASE_RLS_MSGS = 3000
SUPABASE_RLS_P95_MS = 228


def setup(database_url: str, users: list[str]) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("create table public.bench_members (user_id uuid primary key)")
        conn.execute("create table public.bench_msgs (id bigserial primary key, sent_at double precision, body text)")
        conn.execute("alter table public.bench_msgs enable row level security")
        conn.execute("create policy members_read on public.bench_msgs for select to authenticated using"
                     " (exists (select 1 from public.bench_members m where m.user_id = auth.uid()))")
        conn.execute("alter publication supabase_realtime add table public.bench_msgs")
        with conn.cursor() as cur:
            cur.executemany("insert into public.bench_members values (%s)", [(u,) for u in users])


async def open_socket(url: str, apikey: str, topic: str, config: dict, token: str | None = None):
    ws = await websockets.connect(url.replace("http", "ws", 1) + f"/realtime/v1/websocket?apikey={apikey}&vsn=2.0.0",
                                  max_queue=None)
    payload = {"config": config, **({"access_token": token} if token else {})}
    await ws.send(orjson.dumps(["1", "1", topic, "phx_join", payload]).decode())
    while True:
        frame = orjson.loads(await ws.recv())
        if frame[3] == "phx_reply":
            assert frame[4]["status"] == "ok", frame
            return ws


async def postgres_changes(server: harness.LiveServer, subscribers: int, step_seconds: float) -> tuple[int, float]:
    users = [str(uuid.uuid4()) for _ in range(subscribers)]
    setup(server.database_url, users)
    config = {"postgres_changes": [{"event": "INSERT", "schema": "public", "table": "bench_msgs"}]}
    sockets = []
    for i in range(0, subscribers, 50):
        sockets += await asyncio.gather(*(open_socket(server.url, server.anon_key, "realtime:bench", config,
                                                      user_token(server.settings, u)) for u in users[i:i + 50]))
    latencies: list[float] = []

    async def reader(ws) -> None:
        async for raw in ws:
            frame = orjson.loads(raw)
            if frame[3] == "postgres_changes":
                latencies.append(time.time() - frame[4]["data"]["record"]["sent_at"])

    readers = [asyncio.create_task(reader(ws)) for ws in sockets]
    best = (0, 0.0)
    async with await psycopg.AsyncConnection.connect(server.database_url, autocommit=True) as conn:
        for rate in (2, 4, 6, 8, 12, 16, 24, 32):
            latencies.clear()
            n = int(rate * step_seconds)
            start = time.monotonic()
            for i in range(n):
                await asyncio.sleep(max(0.0, start + i / rate - time.monotonic()))
                await conn.execute("insert into public.bench_msgs (sent_at, body) values (%s, 'x')", [time.time()])
            expected = n * subscribers
            deadline = time.monotonic() + 10
            while len(latencies) < expected and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            delivered = len(latencies)
            p95 = statistics.quantiles(latencies, n=20)[18] if len(latencies) > 20 else float("inf")
            if delivered < expected:
                p95 = float("inf")
            print(f"  {rate:3d} inserts/s -> {rate * subscribers:6d} msg/s offered, delivered {delivered}/{expected},"
                  f" p95 {p95 * 1000:.0f} ms")
            if p95 >= 1.0:
                break
            best = (rate * subscribers, p95)
    for task in readers:
        task.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return best


async def broadcast_fanout(server: harness.LiveServer, count: int, messages: int) -> float:
    sockets = []
    for i in range(0, count, 100):
        sockets += await asyncio.gather(*(open_socket(server.url, server.anon_key, "realtime:fanout", {})
                                          for _ in range(min(100, count - i))))
    received = 0
    done = asyncio.Event()

    async def reader(ws) -> None:
        nonlocal received
        async for _ in ws:
            received += 1
            if received >= count * messages:
                done.set()

    readers = [asyncio.create_task(reader(ws)) for ws in sockets]
    start = time.monotonic()
    async with httpx.AsyncClient() as http:
        for i in range(messages):
            await http.post(f"{server.url}/realtime/v1/api/broadcast", headers={"apikey": server.anon_key},
                            json={"messages": [{"topic": "fanout", "event": "tick", "payload": {"i": i}}]})
    try:
        await asyncio.wait_for(done.wait(), 60)
    except TimeoutError:
        pass
    elapsed = time.monotonic() - start
    for task in readers:
        task.cancel()
    await asyncio.gather(*(ws.close() for ws in sockets), return_exceptions=True)
    return received / elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--subscribers", type=int, default=500)
    parser.add_argument("--sockets", type=int, default=1000)
    parser.add_argument("--messages", type=int, default=50)
    parser.add_argument("--step-seconds", type=float, default=5.0)
    args = parser.parse_args()
    cluster = harness.session_cluster()
    owner = next(cluster)
    harness.build_template(owner)
    database_url = harness.create_database_from_template(owner, harness.unique_name("bench_realtime"))
    # Realtime's per-tenant caps (TENANT_MAX_*, upstream's self-hosted defaults) would cut a bench
    # of 1,000 sockets off: lifted here, as a tenant sized for this load would have them.
    server = harness.start_server(database_url, args=["--no-migrate"], extra_env={
        "TENANT_MAX_CONCURRENT_USERS": "100000", "TENANT_MAX_JOINS_PER_SECOND": "100000",
        "TENANT_MAX_EVENTS_PER_SECOND": "1000000"})
    try:
        print(f"postgres_changes, {args.subscribers} subscribers, RLS policy on auth.uid():")
        msgs, p95 = asyncio.run(postgres_changes(server, args.subscribers, args.step_seconds))
        print(f"supalite: {msgs} msg/s delivered with p95 {p95 * 1000:.0f} ms (< 1 s)"
              f" | Supabase, 2-core instance: ~{SUPABASE_RLS_MSGS} msg/s at p95 {SUPABASE_RLS_P95_MS} ms"
              f" | ratio {msgs / SUPABASE_RLS_MSGS:.2f}")
        rate = asyncio.run(broadcast_fanout(server, args.sockets, args.messages))
        print(f"broadcast fan-out, {args.sockets} sockets: {rate:.0f} msg/s delivered")
        record("realtime", f"postgres_changes, {args.subscribers} subscribers under RLS", f"{msgs} msg/s, p95 {p95 * 1000:.0f} ms",
               msgs / SUPABASE_RLS_MSGS, f"Supabase 2-core ~{SUPABASE_RLS_MSGS} msg/s", "p95 < 1 s")
        record("realtime", f"broadcast fan-out, {args.sockets} sockets", f"{rate:.0f} msg/s")
    finally:
        server.stop()
        try:
            next(cluster)
        except StopIteration:
            pass


if __name__ == "__main__":
    main()
