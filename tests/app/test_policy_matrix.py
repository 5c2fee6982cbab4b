"""`supalite policies check`: the app's matrix passes, and a wrong expectation is caught."""

from __future__ import annotations

import io
import os
import subprocess
from pathlib import Path

import psycopg
import pytest

from server.policycheck import MatrixError, load_matrix, run_check
from tests import harness

MATRIX = harness.APP / "policies" / "matrix.yaml"


def test_the_apps_permission_matrix_passes(database_url: str):
    out = io.StringIO()
    status = run_check(database_url, MATRIX, out)
    assert status == 0, out.getvalue()
    assert "all" in out.getvalue() and "match the matrix" in out.getvalue()


def test_matrix_covers_every_table_and_rpc_with_each_operation(database_url: str):
    matrix = load_matrix(MATRIX)
    with psycopg.connect(database_url) as conn:
        tables = {r[0] for r in conn.execute(
            "select tablename from pg_tables where schemaname = 'public'").fetchall()} | {"profiles"}
    covered = {(c.target.split(" ")[0], c.operation) for c in matrix.checks}
    for table in tables:
        for operation in ("select", "insert", "update", "delete"):
            assert (table, operation) in covered, f"{table}.{operation} is not in the matrix"
    for rpc in ("user_has_book_access", "user_has_full_access", "user_has_course_access", "get_visible_courses",
                "get_visible_course_content", "get_user_unlocked_content", "get_contact_admin", "is_owner_account",
                "get_site_contact", "get_course_outline", "get_lesson_status", "preview_unlock_schedule"):
        assert any(c.target.startswith(f"rpc {rpc}") for c in matrix.checks), rpc
    assert [p.name for p in matrix.personas] == ["visitor", "learner", "member", "veteran", "granted", "admin", "service"]


def test_a_wrong_expectation_is_marked_and_fails(database_url: str, tmp_path: Path):
    wrong = MATRIX.read_text().replace(
        'update: {sql: "update books set title = \'Renamed\' where id = %(book)s", expect: {"*": deny, admin: allow, service: allow}}',
        'update: {sql: "update books set title = \'Renamed\' where id = %(book)s", expect: {"*": allow}}')
    assert wrong != MATRIX.read_text()
    (tmp_path / "matrix").mkdir()
    (tmp_path / "matrix" / "fixtures.sql").write_text((MATRIX.parent / "matrix" / "fixtures.sql").read_text())
    (tmp_path / "matrix.yaml").write_text(wrong)
    out = io.StringIO()
    assert run_check(database_url, tmp_path / "matrix.yaml", out) == 1
    text = out.getvalue()
    assert "✗ deny/allow" in text
    assert "books.update as learner: got deny, want allow" in text


def test_the_check_leaves_the_database_unchanged(database_url: str):
    with psycopg.connect(database_url) as conn:
        before = conn.execute("select count(*) from auth.users").fetchone()
    run_check(database_url, MATRIX, io.StringIO())
    with psycopg.connect(database_url) as conn:
        assert conn.execute("select count(*) from auth.users").fetchone() == before


def test_a_malformed_matrix_is_reported(tmp_path: Path):
    bad = tmp_path / "matrix.yaml"
    bad.write_text("personas: {a: {role: anon}}\nchecks: {t: {select: {sql: 'select 1', expect: {b: 1}}}}\n")
    with pytest.raises(MatrixError, match="unknown persona 'b'"):
        load_matrix(bad)


def test_cli_exit_status(database_url: str):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SUPALITE_", "PGRST_", "GOTRUE_"))}
    env.update(DATABASE_URL=database_url, SUPALITE_PROJECT_DIR=str(harness.APP))
    result = subprocess.run([harness.SUPALITE, "policies", "check"], env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "target.operation" in result.stdout
