"""Seconds from `supalite serve` to healthy, with a cold and a warm data directory, and the
resident memory of the server plus its PostgreSQL.

Run: .venv/bin/python bench/startup.py
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.figures import record
from tests import harness


def timed_start(data_dir: Path) -> tuple[float, float]:
    started = time.monotonic()
    server = harness.start_server(None, data_dir=data_dir, extra_env={"SUPALITE_DB_PORT": "0"})
    elapsed = time.monotonic() - started
    time.sleep(0.5)
    rss = harness.process_tree_rss(server.process.pid) / 1024 / 1024
    server.stop()
    return elapsed, rss


def main() -> None:
    data_dir = harness.scratch_dir("supalite-bench-") / "data"
    cold, _ = timed_start(data_dir)
    warm_runs = [timed_start(data_dir) for _ in range(3)]
    warm = min(t for t, _ in warm_runs)
    rss = max(r for _, r in warm_runs)
    print(f"cold start (initdb + migrate + serve): {cold:.2f} s   (aim < 10 s; supabase start: minutes on first pull)")
    print(f"warm start:                            {warm:.2f} s   (aim < 3 s;  supabase start: ~30 s with images cached)")
    print(f"resident memory, server + postgres:    {rss:.0f} MB   (aim < 300 MB; Supabase advises 7 GB RAM for Docker)")
    record("startup", "cold start (initdb + migrate + serve)", f"{cold:.2f} s", aim="< 10 s")
    record("startup", "warm start", f"{warm:.2f} s", aim="< 3 s")
    record("startup", "resident memory, server + postgres", f"{rss:.0f} MB", aim="< 300 MB")
    subprocess.run(["rm", "-rf", str(data_dir.parent)], check=False)


if __name__ == "__main__":
    main()
