"""Runs every cell of the matrix: one transaction, fixtures as the owner, then a savepoint
per cell in which the persona's role and JWT claims are set as the API sets them."""

from __future__ import annotations

from pathlib import Path
from typing import Any, TextIO

import orjson
import psycopg

from server.core.request_context import SET_CONTEXT_SQL
from server.core.sql_split import split_statements
from server.policycheck.matrix import CellResult, Check, Expectation, Matrix, MatrixError, Persona, load_matrix
from server.policycheck.report import render


def _claims(persona: Persona, matrix: Matrix) -> str:
    claims: dict[str, Any] = {"role": persona.role, **persona.claims}
    if persona.user:
        claims["sub"] = str(matrix.ids[persona.user])
    return orjson.dumps(claims).decode()


def _params(matrix: Matrix, query: str) -> dict[str, Any] | None:
    return {name: value for name, value in matrix.ids.items()} if "%" in query else None


def _outcome(check: Check, expected: Expectation, cur: psycopg.Cursor) -> Expectation | str:
    if not check.is_read:
        return "allow" if cur.rowcount > 0 else "deny"
    rows = cur.fetchall() if cur.description else []
    if isinstance(expected, bool):
        return rows[0][0] if rows and isinstance(rows[0][0], bool) else len(rows)
    return len(rows)


def run_cell(conn: psycopg.Connection, matrix: Matrix, check: Check, persona: Persona) -> CellResult:
    expected = check.expect[persona.name]
    params = _params(matrix, check.sql)
    try:
        with conn.transaction():  # a savepoint: the cell's effects and role are undone
            conn.execute(SET_CONTEXT_SQL, [persona.role, _claims(persona, matrix), "POST", "/policies/check", "{}", None])
            with conn.cursor() as cur:
                cur.execute(check.sql.encode() if params is None else check.sql, params)
                actual = _outcome(check, expected, cur)
                raise _Undo(actual)
    except _Undo as undo:
        return CellResult(check, persona.name, expected, undo.actual)
    except psycopg.Error as exc:
        message = (exc.diag.message_primary or str(exc)).splitlines()[0]
        failed: Expectation | str = "deny" if not check.is_read else "error"
        return CellResult(check, persona.name, expected, failed, f"{exc.sqlstate}: {message}")


class _Undo(Exception):
    """Leaves the cell's savepoint by rolling it back, carrying the outcome out."""

    def __init__(self, actual: Expectation | str) -> None:
        self.actual = actual


def load_fixtures(conn: psycopg.Connection, matrix: Matrix) -> None:
    for statement in split_statements(matrix.fixtures_sql):
        params = _params(matrix, statement.text)
        try:
            conn.execute(statement.text.encode() if params is None else statement.text, params)
        except psycopg.Error as exc:
            first = (exc.diag.message_primary or str(exc)).splitlines()[0]
            raise MatrixError(f"fixtures line {statement.line}: {first}") from None


def run_matrix(owner_url: str, matrix: Matrix) -> list[CellResult]:
    """Every cell; the database is left exactly as it was."""
    results: list[CellResult] = []
    with psycopg.connect(owner_url) as conn:
        try:
            with conn.transaction(force_rollback=True):
                load_fixtures(conn, matrix)
                for check in matrix.checks:
                    for persona in matrix.personas:
                        results.append(run_cell(conn, matrix, check, persona))
        finally:
            conn.rollback()
    return results


def run_check(owner_url: str, matrix_path: Path, out: TextIO) -> int:
    matrix = load_matrix(matrix_path)
    results = run_matrix(owner_url, matrix)
    out.write(render(matrix, results))
    return 0 if all(r.ok for r in results) else 1
