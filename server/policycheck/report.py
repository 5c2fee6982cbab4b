"""The matrix as a text table: one row per target.operation, one column per persona.
A differing cell reads `✗ got/want`; details of errors behind differing cells follow."""

from __future__ import annotations

from server.policycheck.matrix import CellResult, Matrix


def _show(value: object) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    return str(value)


def render(matrix: Matrix, results: list[CellResult]) -> str:
    personas = [p.name for p in matrix.personas]
    by_cell = {(r.check.target, r.check.operation, r.persona): r for r in results}
    rows: list[list[str]] = []
    for check in matrix.checks:
        row = [f"{check.target}.{check.operation}"]
        for name in personas:
            result = by_cell[(check.target, check.operation, name)]
            row.append(_show(result.actual) if result.ok else f"✗ {_show(result.actual)}/{_show(result.expected)}")
        rows.append(row)
    header = ["target.operation", *personas]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(header)).rstrip(),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows]
    failed = [r for r in results if not r.ok]
    lines.append("")
    if failed:
        lines.append(f"{len(failed)} of {len(results)} cells differ from the matrix (✗ got/want):")
        for r in failed:
            detail = f" ({r.error})" if r.error else ""
            lines.append(f"  {r.check.target}.{r.check.operation} as {r.persona}: got {_show(r.actual)}, "
                         f"want {_show(r.expected)}{detail}")
    else:
        lines.append(f"all {len(results)} cells match the matrix")
    return "\n".join(lines) + "\n"
