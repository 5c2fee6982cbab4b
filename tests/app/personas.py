"""Personas for testing the app's data layer directly in SQL: users created as the owner,
queries run as `authenticated`/`anon`/`service_role` with JWT claims, as the API does."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import orjson
import psycopg
from psycopg.rows import dict_row

from server.core.request_context import SET_CONTEXT_SQL


def create_user(conn: psycopg.Connection, name: str, *, admin: bool = False, meta: dict[str, Any] | None = None) -> uuid.UUID:
    """An auth user (the signup trigger makes the profile), promoted to admin if asked."""
    uid = uuid.uuid4()
    email = f"{name}-{uid.hex[:8]}@example.com"
    metadata = {"full_name": name.title(), "country": "France", "whatsapp_number": "+33600000000", **(meta or {})}
    with conn.transaction():
        conn.execute(
            "insert into auth.users (id, aud, role, email, raw_user_meta_data, email_confirmed_at, created_at, updated_at)"
            " values (%s, 'authenticated', 'authenticated', %s, %s, now(), now(), now())",
            [uid, email, orjson.dumps(metadata).decode()],
        )
        if admin:
            conn.execute("update app_private.profiles set role = 'admin' where id = %s", [uid])
    return uid


def owner(conn: psycopg.Connection, query: str, params: Any = None) -> list[dict[str, Any]]:
    with conn.transaction():
        cur = conn.cursor(row_factory=dict_row)
        cur.execute(query, params)
        return cur.fetchall() if cur.description else []


@contextmanager
def as_persona(conn: psycopg.Connection, uid: uuid.UUID | None, role: str = "authenticated",
               extra_claims: dict[str, Any] | None = None) -> Iterator[psycopg.Cursor]:
    """One request transaction as that persona: committed when the block succeeds."""
    claims: dict[str, Any] = {"role": role, **(extra_claims or {})}
    if uid is not None:
        claims["sub"] = str(uid)
    with conn.transaction():
        cur = conn.cursor(row_factory=dict_row)
        cur.execute(SET_CONTEXT_SQL, [role, orjson.dumps(claims).decode(), "POST", "/rest/v1/test", "{}", None])
        yield cur


def query(conn: psycopg.Connection, uid: uuid.UUID | None, sql_text: str, params: Any = None, *,
          role: str = "authenticated", claims: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    with as_persona(conn, uid, role, claims) as cur:
        cur.execute(sql_text, params)
        return cur.fetchall() if cur.description else []


def affected(conn: psycopg.Connection, uid: uuid.UUID | None, sql_text: str, params: Any = None, *,
             role: str = "authenticated") -> int:
    with as_persona(conn, uid, role) as cur:
        cur.execute(sql_text, params)
        return cur.rowcount
