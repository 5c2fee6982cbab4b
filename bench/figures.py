"""The figures every benchmark reports, gathered into one table.

A bench calls `record(...)` for each figure it prints. Run alone, that is all; run by
`bench/all.py` (`make bench`), which sets BENCH_FIGURES to a file, each figure is also
appended there as a JSON line, and all.py prints them together at the end.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

FIGURES_ENV = "BENCH_FIGURES"


@dataclass(frozen=True)
class Figure:
    bench: str  # the script: rest, storage, auth...
    measure: str  # what was measured
    value: str  # the figure, with its unit
    ratio: float | None = None  # against the baseline measured in the same run
    baseline: str = ""  # what the ratio divides by
    aim: str = ""  # the goal, as the README states it


def record(bench: str, measure: str, value: str, ratio: float | None = None, baseline: str = "", aim: str = "") -> None:
    path = os.environ.get(FIGURES_ENV)
    if path:
        with open(path, "a") as out:
            out.write(json.dumps(asdict(Figure(bench, measure, value, ratio, baseline, aim))) + "\n")


def read(path: Path) -> list[Figure]:
    if not path.exists():
        return []
    return [Figure(**json.loads(line)) for line in path.read_text().splitlines() if line.strip()]


def table(figures: list[Figure]) -> str:
    """A Markdown table: bench, measure, value, ratio (over its baseline), aim."""
    rows = [("bench", "measure", "value", "ratio", "baseline", "aim")]
    for f in figures:
        rows.append((f.bench, f.measure, f.value, "" if f.ratio is None else f"{f.ratio:.2f}", f.baseline, f.aim))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]

    def line(row: tuple[str, ...]) -> str:
        return "| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)) + " |"

    return "\n".join([line(rows[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows[1:])])
