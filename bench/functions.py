"""Edge Functions: invocations per second of a hello function through /functions/v1, and its
cold start, each against Deno alone measured in the same run.

- invocations/s: wrk (10 connections) POSTing a small JSON body to the function through the
  server (JWT verified, the request passed to the function's Deno process over its socket),
  divided by the same function served by Deno itself on a TCP port (no server in front):
  what the server's path costs.
- cold start: from the request to the answer when the function's process is not running
  (the first call after its file changed), divided by `deno run` of the same function up to
  its first answer: what starting it through the server adds.

Run: .venv/bin/python bench/functions.py [seconds per phase]
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record

CONNECTIONS = 10
COLD_RUNS = 5
WRK = shutil.which("wrk")
HELLO = """
Deno.serve(async (req) => {
  const { name } = await req.json();
  return Response.json({ message: `Hello ${name}!` });
});
"""
WRK_SCRIPT = """
wrk.method = "POST"
wrk.body = '{"name":"bench"}'
wrk.headers["Content-Type"] = "application/json"
local key = os.getenv("BENCH_KEY")
if key and key ~= "" then wrk.headers["Authorization"] = "Bearer " .. key end
done = function(summary, latency, requests)
  io.write(string.format('{"rps": %f, "p95_ms": %f, "errors": %d}\\n', summary.requests / (summary.duration / 1000000),
    latency:percentile(95) / 1000, summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.timeout))
end
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wrk(url: str, key: str, seconds: float) -> dict[str, float]:
    script = Path(tempfile.mkdtemp(prefix="bench-functions-")) / "post.lua"
    script.write_text(WRK_SCRIPT)
    out = subprocess.run([str(WRK), "-t1", f"-c{CONNECTIONS}", f"-d{max(1, int(seconds))}s", "-s", str(script), url],
                         capture_output=True, text=True, env=dict(os.environ, BENCH_KEY=key), check=True)
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def post(url: str, key: str = "") -> float:
    """Seconds to the answer of one POST, retried until the server answers (a cold start)."""
    import httpx

    headers = {"Authorization": f"Bearer {key}"} if key else {}
    started = time.perf_counter()
    deadline = started + 60
    while True:
        try:
            r = httpx.post(url, json={"name": "bench"}, headers=headers, timeout=60)
            if r.status_code == 200:
                return time.perf_counter() - started
        except httpx.TransportError:
            pass
        if time.perf_counter() > deadline:
            raise RuntimeError(f"{url} never answered")
        time.sleep(0.005)


def deno_alone(function: Path, port: int) -> subprocess.Popen[bytes]:
    """The function served by Deno itself on a TCP port, as `deno run` would."""
    from server.functions.workers import deno_binary

    wrapper = function.parent / "alone.ts"
    wrapper.write_text(f"const serve = Deno.serve.bind(Deno);\n"
                       f"// deno-lint-ignore no-explicit-any\n"
                       f"(Deno as any).serve = (h: any) => serve({{ port: {port}, hostname: '127.0.0.1', onListen() {{}} }}, h);\n"
                       f"await import('{function.as_uri()}');\n")
    return subprocess.Popen([deno_binary(), "run", "--quiet", "--allow-net", "--allow-env", "--allow-read", str(wrapper)],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    if WRK is None:
        print("bench/functions.py needs wrk (apt-get install wrk)")
        return
    from server.provision.embedded import EmbeddedPostgres
    from tests import harness

    pg = EmbeddedPostgres(harness.scratch_dir("bench-functions-pg-") / "data", port=0, fast_unsafe=True)
    owner = pg.start()
    project = Path(tempfile.mkdtemp(prefix="bench-functions-"))
    function = project / "functions" / "hello" / "index.ts"
    function.parent.mkdir(parents=True)
    function.write_text(HELLO)
    try:
        server = harness.start_server(owner, extra_env={"SUPALITE_FUNCTIONS_DIR": str(function.parent.parent)})
        try:
            url = server.url + "/functions/v1/hello"
            colds = []
            for run in range(COLD_RUNS):  # each edit makes the next call start the function again
                function.write_text(HELLO + f"// run {run}\n")
                time.sleep(1.2)  # the server looks at a function's files once a second
                colds.append(post(url, server.anon_key))
            post(url, server.anon_key)
            through = wrk(url, server.anon_key, seconds)
        finally:
            server.stop()
        alone_colds, port = [], free_port()
        for _ in range(COLD_RUNS):
            started = time.perf_counter()
            process = deno_alone(function, port)
            try:
                post(f"http://127.0.0.1:{port}/")  # retried until the process listens
                alone_colds.append(time.perf_counter() - started)
            finally:
                process.kill()
                process.wait()
        process = deno_alone(function, port)
        try:
            post(f"http://127.0.0.1:{port}/")
            alone = wrk(f"http://127.0.0.1:{port}/", "", seconds)
        finally:
            process.kill()
            process.wait()
    finally:
        pg.stop()
        shutil.rmtree(project, ignore_errors=True)
    cold, alone_cold = statistics.median(colds) * 1000, statistics.median(alone_colds) * 1000
    ratio = through["rps"] / alone["rps"]
    print(f"hello function, {CONNECTIONS} connections:")
    print(f"  through /functions/v1  {through['rps']:8.0f} inv/s  p95 {through['p95_ms']:5.1f} ms  errors {through['errors']:.0f}")
    print(f"  Deno alone (TCP)       {alone['rps']:8.0f} req/s  p95 {alone['p95_ms']:5.1f} ms"
          f"  errors {alone['errors']:.0f}   ratio {ratio:.2f}")
    print(f"  cold start             {cold:8.0f} ms (median of {COLD_RUNS}); deno run to first answer {alone_cold:.0f} ms")
    record("functions", "hello invocations, 10 connections",
           f"{through['rps']:.0f} inv/s, p95 {through['p95_ms']:.1f} ms", ratio, f"Deno alone {alone['rps']:.0f} req/s")
    record("functions", "cold start (first call after a change)", f"{cold:.0f} ms", cold / alone_cold,
           f"deno run to first answer {alone_cold:.0f} ms")


if __name__ == "__main__":
    main()
