"""Private messages and device sessions."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from tests.app.personas import owner, query

SEND = "insert into private_messages (sender_id, recipient_id, content) values (%s, %s, %s) returning id"


def test_learner_writes_only_to_admins_as_themselves(conn, world):
    assert query(conn, world.learner, SEND, [world.learner, world.admin, "Bonjour"])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, SEND, [world.learner, world.member, "Psst"])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, SEND, [world.member, world.admin, "Forged"])
    with pytest.raises(psycopg.errors.CheckViolation):
        query(conn, world.learner, SEND, [world.learner, world.admin, "  "])


def test_admin_writes_to_non_admins(conn, world):
    assert query(conn, world.admin, SEND, [world.admin, world.learner, "Réponse"])


def test_conversations_are_private(conn, world):
    message = query(conn, world.member, SEND, [world.member, world.admin, "Mine"])[0]["id"]
    assert query(conn, world.learner, "select id from private_messages where id = %s", [message]) == []
    assert query(conn, world.admin, "select id from private_messages where id = %s", [message]) == [{"id": message}]


def test_only_the_recipient_marks_read(conn, world):
    message = query(conn, world.admin, SEND, [world.admin, world.member, "Lu ?"])[0]["id"]
    assert query(conn, world.admin, "update private_messages set is_read = true where id = %s returning id", [message]) == []
    marked = query(conn, world.member, "update private_messages set is_read = true where id = %s returning is_read", [message])
    assert marked == [{"is_read": True}]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.member, "update private_messages set content = 'edited' where id = %s", [message])


def test_learner_cannot_delete_an_admins_message(conn, world):
    from_admin = query(conn, world.admin, SEND, [world.admin, world.member, "Keep"])[0]["id"]
    mine = query(conn, world.member, SEND, [world.member, world.admin, "Oops"])[0]["id"]
    assert query(conn, world.member, "delete from private_messages where id = %s returning id", [from_admin]) == []
    assert query(conn, world.member, "delete from private_messages where id = %s returning id", [mine]) == [{"id": mine}]
    assert query(conn, world.admin, "delete from private_messages where id = %s returning id", [from_admin]) == [{"id": from_admin}]


def _auth_session(conn, uid) -> uuid.UUID:
    sid = uuid.uuid4()
    owner(conn, "insert into auth.sessions (id, user_id, created_at) values (%s, %s, now())", [sid, uid])
    owner(conn, "insert into auth.refresh_tokens (token, user_id, revoked, session_id) values (%s, %s, false, %s)",
          [uuid.uuid4().hex, str(uid), sid])
    return sid


def _record(conn, uid, sid) -> uuid.UUID:
    rows = query(conn, uid, "insert into user_sessions (user_id, device_name, ip_address) values (%s, 'Chrome on Linux', '1.2.3.4')"
                 " returning id, device_name, ip_address", [uid], claims={"session_id": str(sid)})
    # The device is the JWT's auth session; the address is the one the server saw, not the client's claim.
    assert rows == [{"id": sid, "device_name": "Chrome on Linux", "ip_address": None}]
    return rows[0]["id"]


def test_ending_a_session_revokes_the_auth_session(conn, world):
    sid = _auth_session(conn, world.member)
    row = _record(conn, world.member, sid)
    assert query(conn, world.member, "update user_sessions set last_active = now() where id = %s returning id", [row])
    assert query(conn, world.member, "update user_sessions set is_current = false where id = %s returning id", [row])
    assert owner(conn, "select count(*) as n from auth.sessions where id = %s", [sid]) == [{"n": 0}]
    assert owner(conn, "select count(*) as n from auth.refresh_tokens where session_id = %s", [sid]) == [{"n": 0}]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.member, "update user_sessions set is_current = true where id = %s", [row])


def test_learner_cannot_end_or_see_another_users_session(conn, world):
    sid = _auth_session(conn, world.member)
    row = _record(conn, world.member, sid)
    assert query(conn, world.learner, "select id from user_sessions where id = %s", [row]) == []
    assert query(conn, world.learner, "update user_sessions set is_current = false where id = %s returning id", [row]) == []
    assert owner(conn, "select count(*) as n from auth.sessions where id = %s", [sid]) == [{"n": 1}]
    assert query(conn, world.admin, "update user_sessions set is_current = false where id = %s returning id", [row]) == [{"id": row}]
    assert owner(conn, "select count(*) as n from auth.sessions where id = %s", [sid]) == [{"n": 0}]


def test_a_session_is_recorded_for_oneself_only(conn, world):
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, "insert into user_sessions (user_id, device_name) values (%s, 'x')", [world.member])
