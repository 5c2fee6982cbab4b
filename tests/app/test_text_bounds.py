"""Every free text the site stores is bounded in the database (learning/migrations/sql/0010_text_bounds.sql):
REST writes over a bound answer PostgREST's 400 with code 23514 and the constraint's name; the
web app's copy of the numbers (learning/web/src/config/text-limits.json) agrees with the catalog; an
upgrade over rows already too long fits them and keeps their originals."""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest
from alembic import command
from alembic.config import Config

from server.provision.connection import sqlalchemy_url
from tests import harness
from tests.app.personas import create_user, owner
from tests.realtime.support import user_token

WEB_LIMITS = json.loads((harness.APP / "web" / "src" / "config" / "text-limits.json").read_text())

# Text columns of the site's tables that carry no length bound of their own, and why.
UNBOUNDED = {
    ("profiles", "email"): "auth's (auth.users), copied by a trigger",
    ("session_devices", "device_name"): "its own check since 0007 (1 to 100 characters); named by the app, not typed",
    ("ended_sessions", "device_name"): "copied from session_devices (bounded) or derived from a user agent by device_name()",
    ("ended_sessions", "ip_address"): "host() of an inet",
    ("ended_sessions", "end_reason"): "one of six words (its own check)",
    ("text_bound_originals", "table_name"): "the migration's bookkeeping, never written by a client",
    ("text_bound_originals", "column_name"): "the migration's bookkeeping, never written by a client",
    ("text_bound_originals", "original"): "the migration's bookkeeping: the value as it was",
}


def bounds(conn: psycopg.Connection) -> dict[str, tuple[str, str, int]]:
    """constraint name -> (table, column, bound) for every *_max_length check of the site."""
    rows = owner(conn, """
        select c.conname, t.relname, pg_get_constraintdef(c.oid) as def
        from pg_constraint c join pg_class t on t.oid = c.conrelid join pg_namespace n on n.oid = t.relnamespace
        where c.contype = 'c' and n.nspname in ('public', 'app_private') and c.conname like '%%\\_max\\_length'
    """)
    found = {}
    for row in rows:
        match = re.fullmatch(r"CHECK \(\((?:char|octet)_length\((\w+)\) <= (\d+)\)\)", row["def"])
        assert match, row
        found[row["conname"]] = (row["relname"], match.group(1), int(match.group(2)))
    return found


def test_the_web_app_knows_every_bound(conn):
    assert {name: bound for name, (_, _, bound) in bounds(conn).items()} == WEB_LIMITS


def test_every_free_text_column_is_bounded(conn):
    columns = owner(conn, """
        select t.relname, a.attname
        from pg_attribute a join pg_class t on t.oid = a.attrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname in ('public', 'app_private') and t.relkind in ('r', 'p') and a.attnum > 0
          and not a.attisdropped and a.atttypid in ('text'::regtype, 'varchar'::regtype, 'bpchar'::regtype)
    """)
    bounded = {(table, column) for table, column, _ in bounds(conn).values()}
    unbounded = {(r["relname"], r["attname"]) for r in columns} - bounded - UNBOUNDED.keys()
    assert unbounded == set(), f"free texts without a bound: {sorted(unbounded)}"


@pytest.fixture(scope="module")
def tokens(live_server, world) -> dict[str, str]:
    return {name: user_token(live_server.settings, str(getattr(world, name))) for name in ("admin", "learner", "member")}


def rest(server: harness.LiveServer, token: str, method: str, path: str, body: Any) -> httpx.Response:
    headers = {"apikey": server.anon_key, "Authorization": f"Bearer {token}", "Prefer": "return=minimal"}
    return httpx.request(method, f"{server.url}/rest/v1/{path}", json=body, headers=headers, timeout=30)


def refused(res: httpx.Response, constraint: str) -> None:
    assert res.status_code == 400, res.text
    body = res.json()
    assert body["code"] == "23514", body
    assert f'"{constraint}"' in body["message"], body


# (who, method, path, body with the text, the text's key, its constraint)
WRITES = [
    ("learner", "POST", "content_comments", lambda w: {"content_id": str(w.public_lesson)}, "content",
     "content_comments_content_max_length"),
    ("learner", "POST", "private_messages", lambda w: {"recipient_id": str(w.admin)}, "content", "private_messages_content_max_length"),
    ("learner", "PATCH", "profiles?id=eq.{learner}", lambda w: {}, "full_name", "profiles_full_name_max_length"),
    ("learner", "PATCH", "profiles?id=eq.{learner}", lambda w: {}, "country", "profiles_country_max_length"),
    ("learner", "PATCH", "profiles?id=eq.{learner}", lambda w: {}, "whatsapp_number", "profiles_whatsapp_number_max_length"),
    ("admin", "POST", "courses", lambda w: {}, "title", "courses_title_max_length"),
    ("admin", "POST", "courses", lambda w: {"title": "Bounded"}, "description", "courses_description_max_length"),
    ("admin", "POST", "books", lambda w: {}, "title", "books_title_max_length"),
    ("admin", "POST", "books", lambda w: {"title": "Bounded"}, "description", "books_description_max_length"),
    ("admin", "PATCH", "course_content?id=eq.{public_lesson}", lambda w: {}, "title", "course_content_title_max_length"),
    ("admin", "PATCH", "course_content?id=eq.{public_lesson}", lambda w: {}, "description", "course_content_description_max_length"),
]


@pytest.mark.parametrize(("who", "method", "path", "base", "key", "constraint"), WRITES,
                         ids=[f"{w[2].split('?')[0]}.{w[4]}" for w in WRITES])
def test_rest_refuses_a_text_over_its_bound(live_server, world, tokens, who, method, path, base, key, constraint):
    limit = WEB_LIMITS[constraint]
    target = path.format(learner=world.learner, public_lesson=world.public_lesson)
    # At the bound: accepted (an "é" is one character, as Postgres counts them).
    at_bound = rest(live_server, tokens[who], method, target, {**base(world), key: "é" * limit})
    assert at_bound.status_code in (201, 204), at_bound.text
    refused(rest(live_server, tokens[who], method, target, {**base(world), key: "é" * (limit + 1)}), constraint)


def test_a_reply_over_its_bound_is_refused(live_server, world, tokens):
    made = httpx.post(f"{live_server.url}/rest/v1/content_comments",
                      json={"content_id": str(world.public_lesson), "content": "Une question"},
                      headers={"apikey": live_server.anon_key, "Authorization": f"Bearer {tokens['learner']}",
                               "Prefer": "return=representation"})
    assert made.status_code == 201, made.text
    body = {"comment_id": made.json()[0]["id"], "content": "x" * 2001}
    refused(rest(live_server, tokens["member"], "POST", "comment_replies", body), "comment_replies_content_max_length")


def test_the_five_megabyte_comment_is_refused(live_server, world, tokens):
    """The issue's case: it was stored (201) and then sent to every learner with the lesson."""
    res = rest(live_server, tokens["learner"], "POST", "content_comments",
               {"content_id": str(world.public_lesson), "content": "spam " * 1_000_000})
    refused(res, "content_comments_content_max_length")


def test_sign_up_metadata_over_a_bound_is_cut_not_refused(live_server, conn):
    """The metadata is the client's: the profile keeps its first characters (a refusal would be
    GoTrue's 500 "Database error saving new user")."""
    email = f"long-{uuid.uuid4().hex[:8]}@example.com"
    res = httpx.post(f"{live_server.url}/auth/v1/signup", headers={"apikey": live_server.anon_key}, timeout=30,
                     json={"email": email, "password": "long-names-1",
                           "data": {"full_name": "N" * 5000, "country": "P" * 500, "whatsapp_number": "9" * 100}})
    assert res.status_code == 200, res.text
    [profile] = owner(conn, "select full_name, country, whatsapp_number from app_private.profiles where email = %s", [email])
    assert profile == {"full_name": "N" * 100, "country": "P" * 100, "whatsapp_number": "9" * 32}


@pytest.fixture()
def scratch_database(template_ready: str) -> Iterator[str]:
    name = harness.unique_name("t_text_bounds_upgrade")
    url = harness.create_database_from_template(template_ready, name)
    yield url
    harness.drop_database(template_ready, name)


def alembic(url: str, verb: str, revision: str) -> None:
    cfg = Config()
    cfg.set_main_option("script_location", str(harness.APP / "migrations"))
    cfg.attributes["sqlalchemy_url"] = sqlalchemy_url(url)
    getattr(command, verb)(cfg, revision)


def test_an_upgrade_over_rows_already_too_long_fits_them_and_keeps_the_originals(scratch_database):
    alembic(scratch_database, "downgrade", "0009")
    with psycopg.connect(scratch_database) as conn:
        learner = create_user(conn, "oversize", meta={"full_name": "  " + "N" * 300})
        course = owner(conn, "insert into courses (title, description) values (%s, %s) returning id",
                       ["T" * 250, "D" * 6000])[0]["id"]
        lesson = owner(conn, "insert into course_content (course_id, title, file_type, file_path)"
                             " values (%s, 'Leçon', 'pdf', %s) returning id",
                       [course, "p/" + "é" * 600])[0]["id"]  # 1,202 bytes: no stored object has such a name
        comment = owner(conn, "insert into content_comments (content_id, user_id, content) values (%s, %s, %s) returning id",
                        [lesson, learner, "  spam" * 1_000_000])[0]["id"]

    alembic(scratch_database, "upgrade", "head")  # no error: the rows were fitted first

    with psycopg.connect(scratch_database) as conn:
        assert owner(conn, "select full_name from app_private.profiles where id = %s", [learner]) == [{"full_name": "N" * 100}]
        assert owner(conn, "select title, description from courses where id = %s", [course]) == [
            {"title": "T" * 200, "description": "D" * 5000}]
        assert owner(conn, "select file_path from course_content where id = %s", [lesson]) == [{"file_path": None}]
        [row] = owner(conn, "select content from content_comments where id = %s", [comment])
        assert row["content"] == ("spam  " * 334)[:2000]  # trimmed, then cut to the bound
        saved = owner(conn, "select table_name, row_id, column_name, char_length(original) as n"
                            " from app_private.text_bound_originals order by table_name, column_name")
        assert saved == [
            {"table_name": "app_private.profiles", "row_id": learner, "column_name": "full_name", "n": 300},
            {"table_name": "public.content_comments", "row_id": comment, "column_name": "content", "n": 6_000_000},
            {"table_name": "public.course_content", "row_id": lesson, "column_name": "file_path", "n": 602},
            {"table_name": "public.courses", "row_id": course, "column_name": "description", "n": 6000},
            {"table_name": "public.courses", "row_id": course, "column_name": "title", "n": 250},
        ]
        # Every bound is a validated constraint, enforced from now on.
        unchecked = "select count(*) as n from pg_constraint where conname like '%%\\_max\\_length' and not convalidated"
        assert owner(conn, unchecked) == [{"n": 0}]
        with pytest.raises(psycopg.errors.CheckViolation):
            owner(conn, "update content_comments set content = %s where id = %s", ["x" * 2001, comment])
