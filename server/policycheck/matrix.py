"""The matrix file, validated.

    fixtures: matrix_fixtures.sql      # SQL run as the owner first (path relative to this file)
    ids:                               # names bound as %(name)s in fixtures and checks
      alice: 00000000-0000-4000-8000-000000000001
    personas:                          # role + optional user (an id name) + extra claims
      visitor: {role: anon}
      alice: {role: authenticated, user: alice}
    checks:
      notes:                           # a table, function or any label
        select: {sql: "select * from notes", expect: {"*": 0, alice: 1}}
        insert: {sql: "insert into notes ...", expect: {"*": deny, alice: allow}}

Expectations: allow / deny; a row count (reads); true / false (the first value returned).
Reads are `select`/`call` operations; any other operation is a write, allowed when it
raises no error and touches at least one row. Queries are psycopg queries: %(name)s binds
an id; write %% for a literal percent sign.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import yaml

from server.core.config import ConfigError

READ_OPERATIONS = ("select", "call")
Verdict = Literal["allow", "deny"]
Expectation = Verdict | int | bool


class MatrixError(ConfigError):
    """The matrix file is malformed; the message says where."""


@dataclass(frozen=True)
class Persona:
    name: str
    role: str
    user: str | None
    claims: dict[str, Any]


@dataclass(frozen=True)
class Check:
    target: str
    operation: str
    sql: str
    expect: dict[str, Expectation]  # persona -> expectation (every persona filled)

    @property
    def is_read(self) -> bool:
        return self.operation in READ_OPERATIONS


@dataclass(frozen=True)
class Matrix:
    fixtures_sql: str
    ids: dict[str, uuid.UUID]
    personas: list[Persona]
    checks: list[Check]


def _expectation(value: object, where: str) -> Expectation:
    if isinstance(value, bool) or (isinstance(value, int) and value >= 0):
        return value
    if value == "allow":
        return "allow"
    if value == "deny":
        return "deny"
    raise MatrixError(f"{where}: expected allow, deny, a row count or true/false, not {value!r}")


def load_matrix(path: Path) -> Matrix:
    if not path.is_file():
        raise MatrixError(f"no permission matrix at {path}")
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except yaml.YAMLError as exc:
        raise MatrixError(f"{path}: {exc}") from None
    fixtures = data.get("fixtures")
    fixtures_sql = (path.parent / fixtures).read_text() if fixtures else ""
    try:
        ids = {str(k): uuid.UUID(str(v)) for k, v in (data.get("ids") or {}).items()}
    except ValueError as exc:
        raise MatrixError(f"{path}: ids: {exc}") from None
    personas = []
    for name, spec in (data.get("personas") or {}).items():
        spec = spec or {}
        user = spec.get("user")
        if user is not None and user not in ids:
            raise MatrixError(f"{path}: persona {name}: user {user!r} is not in ids")
        personas.append(Persona(str(name), str(spec.get("role", "authenticated")), user, dict(spec.get("claims") or {})))
    if not personas:
        raise MatrixError(f"{path}: no personas")
    names = {p.name for p in personas}
    checks = []
    for target, operations in (data.get("checks") or {}).items():
        for operation, spec in (operations or {}).items():
            where = f"{path.name}: {target}.{operation}"
            if not isinstance(spec, dict) or "sql" not in spec or "expect" not in spec:
                raise MatrixError(f"{where}: needs sql and expect")
            raw = dict(spec["expect"])
            unknown = set(raw) - names - {"*"}
            if unknown:
                raise MatrixError(f"{where}: unknown persona {sorted(unknown)[0]!r}")
            expect = {}
            for persona in personas:
                if persona.name not in raw and "*" not in raw:
                    raise MatrixError(f"{where}: no expectation for persona {persona.name!r} (add it or '*')")
                expect[persona.name] = _expectation(raw.get(persona.name, raw.get("*")), where)
            checks.append(Check(str(target), str(operation), str(spec["sql"]), expect))
    return Matrix(fixtures_sql, ids, personas, checks)


@dataclass(frozen=True)
class CellResult:
    check: Check
    persona: str
    expected: Expectation
    actual: Expectation | str  # what happened: allow/deny, a row count, a value, or "error"
    error: str | None = None

    @property
    def ok(self) -> bool:
        return matches(self.check, self.expected, self.actual)


def matches(check: Check, expected: Expectation, actual: Expectation | str) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if not check.is_read:
        return expected == actual
    if expected == "deny":
        return actual == "error" or actual == 0
    if expected == "allow":
        return isinstance(actual, int) and actual > 0
    return expected == actual
