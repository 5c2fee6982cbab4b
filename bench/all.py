"""Every benchmark in turn, then one table of their figures (`make bench`).

Each bench runs as its own process with its usual output, and records its figures
(bench/figures.py); the table at the end gathers them with their ratios and aims. The
machine should be quiet: every ratio divides by a baseline measured in the same run, but a
load that changes between the two phases still moves it.

Run: .venv/bin/python bench/all.py [names, e.g. rest,auth]   (default: all of them)
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH.parent))

from bench import figures  # noqa: E402 - after the path is set

# Name -> arguments: each bench's defaults, but for phases kept short enough that the
# whole run stays near ten minutes.
BENCHES: dict[str, list[str]] = {
    "startup": [],
    "rest": ["5", "1,2"],
    "auth": ["5"],
    "storage": [],
    "realtime": ["--step-seconds", "3"],
    "functions": ["5"],
    "soak": ["100", "30"],
}


def main() -> int:
    names = sys.argv[1].split(",") if len(sys.argv) > 1 else list(BENCHES)
    unknown = [n for n in names if n not in BENCHES]
    if unknown:
        print(f"unknown bench {', '.join(unknown)}; known: {', '.join(BENCHES)}", file=sys.stderr)
        return 2
    out = Path(tempfile.mkdtemp(prefix="bench-figures-")) / "figures.jsonl"
    env = dict(os.environ, **{figures.FIGURES_ENV: str(out)})
    failed = []
    for name in names:
        print(f"\n=== bench/{name}.py {' '.join(BENCHES[name])}", flush=True)
        started = time.monotonic()
        code = subprocess.run([sys.executable, str(BENCH / f"{name}.py"), *BENCHES[name]], env=env).returncode
        print(f"=== bench/{name}.py: {time.monotonic() - started:.0f} s" + (f", exit {code}" if code else ""), flush=True)
        if code:
            failed.append(name)
    print(f"\n{figures.table(figures.read(out))}")
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
