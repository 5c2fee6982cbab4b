"""The SQL on auth.* tables lives in server/auth/models/, one module per table, and nowhere else in server/auth."""

from __future__ import annotations

import re
from pathlib import Path

import server.auth

AUTH = Path(server.auth.__file__).parent
# A statement naming an auth table: `from auth.users`, `into auth.sessions`, `update auth.identities`...
_STATEMENT_ON_AUTH_TABLE = re.compile(r"\b(from|into|update|join)\s+auth\.[a-z_]+", re.IGNORECASE)


def test_no_sql_on_auth_tables_outside_the_models() -> None:
    offenders = [f"{path.relative_to(AUTH)}:{number}"
                 for path in sorted(AUTH.rglob("*.py")) if "models" not in path.relative_to(AUTH).parts
                 for number, line in enumerate(path.read_text().splitlines(), 1)
                 if _STATEMENT_ON_AUTH_TABLE.search(line) and not line.lstrip().startswith(("#", "from ", "import "))]
    assert offenders == []


def test_one_model_per_table() -> None:
    """Each model module's statements name its own table first (joins and subqueries may read others)."""
    for path in sorted((AUTH / "models").glob("*.py")):
        if path.name == "__init__.py":
            continue
        tables = {match.group(0).split(".")[1] for match in re.finditer(r"auth\.[a-z_]+", path.read_text())}
        assert path.stem in tables, f"{path.name} holds no SQL on auth.{path.stem}"
