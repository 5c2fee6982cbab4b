"""The demo seed: idempotent, the accounts it announces exist, files are stored."""

from __future__ import annotations

import bcrypt
import psycopg
import pytest

from server.core.config import ConfigError
from server.provision.seeding import run_seed
from tests import harness


def test_seed_twice_gives_the_same_data(database_url: str):
    settings = harness.base_settings(database_url, data_dir=harness.scratch_dir("seed-data-"))
    notes = run_seed(settings, database_url)
    assert any("admin@example.com" in line for line in notes)
    with psycopg.connect(database_url) as conn:
        counts = conn.execute("select (select count(*) from courses), (select count(*) from course_content),"
                              " (select count(*) from books), (select count(*) from auth.users),"
                              " (select count(*) from private_messages)").fetchone()
    run_seed(settings, database_url)
    with psycopg.connect(database_url) as conn:
        again = conn.execute("select (select count(*) from courses), (select count(*) from course_content),"
                             " (select count(*) from books), (select count(*) from auth.users),"
                             " (select count(*) from private_messages)").fetchone()
        assert counts == again == (3, 9, 2, 4, 3)
        roles = dict(conn.execute("select email, role::text from app_private.profiles").fetchall())
        assert roles["admin@example.com"] == "admin" and roles["prof@example.com"] == "admin"
        assert roles["eleve@example.com"] == "user"
        hashed = conn.execute("select encrypted_password from auth.users where email = 'eleve@example.com'").fetchone()[0]
        assert hashed.startswith("$2b$10$") and bcrypt.checkpw(b"eleve-demo-123", hashed.encode())
        assert conn.execute("select count(*) from auth.identities").fetchone() == (4,)
        stored = {(b, n) for b, n in conn.execute("select bucket_id, name from storage.objects").fetchall()}
        files = {(("books", p)) for (p,) in conn.execute("select file_path from books")}
        files |= {("course-content", p) for (p,) in conn.execute("select file_path from course_content where file_path is not null")}
        assert files <= stored


def test_seed_refuses_production(database_url: str):
    settings = harness.base_settings(database_url, jwt_secret="a-real-production-secret-of-32-characters!")
    with pytest.raises(ConfigError, match="production"):
        run_seed(settings, database_url)


def test_serve_seed_prints_the_demo_accounts(database_url: str):
    server = harness.start_server(database_url, args=["--no-migrate", "--seed"],
                                  data_dir=harness.scratch_dir("seed-serve-"),
                                  extra_env={"SUPALITE_APP_OWNER_EMAIL": "owner@example.com"})
    try:
        log = server.log()
        assert "demo data seeded" in log and "owner@example.com / admin-demo-123" in log
    finally:
        server.stop()
