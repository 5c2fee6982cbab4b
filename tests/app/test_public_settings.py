"""Public app settings as RPCs: the contact admin (id and name, never an e-mail), whether
the caller is the owner account, and the school's contact details."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import httpx
import psycopg
import pytest

from tests import harness
from tests.app.personas import owner, query
from tests.realtime.support import user_token


def email_of(conn: psycopg.Connection, uid: uuid.UUID) -> str:
    return owner(conn, "select email from app_private.profiles where id = %s", [uid])[0]["email"]


@pytest.fixture()
def app_settings(conn: psycopg.Connection) -> Iterator[callable]:
    """Sets app.<name> for this session (as `alter database ... set` does for new ones)."""
    names: list[str] = []

    def setter(name: str, value: str) -> None:
        names.append(name)
        conn.execute("select set_config(%s, %s, false)", [f"app.{name}", value])
        conn.commit()

    yield setter
    for name in names:
        conn.execute("select set_config(%s, '', false)", [f"app.{name}"])
    conn.commit()


def test_contact_admin_is_id_and_name_for_any_signed_in_user(conn, world, app_settings):
    app_settings("contact_admin_email", email_of(conn, world.admin).upper())
    for persona in (world.learner, world.member, world.admin):
        rows = query(conn, persona, "select * from get_contact_admin()")
        assert rows == [{"id": world.admin, "full_name": "Admin"}]


def test_contact_admin_is_refused_to_visitors(conn, world, app_settings):
    app_settings("contact_admin_email", email_of(conn, world.admin))
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, None, "select * from get_contact_admin()", role="anon")


def test_no_contact_admin_when_unset_or_not_an_admin(conn, world, app_settings):
    assert query(conn, world.learner, "select * from get_contact_admin()") == []
    app_settings("contact_admin_email", email_of(conn, world.member))  # a learner is never the counterpart
    assert query(conn, world.learner, "select * from get_contact_admin()") == []


def test_is_owner_account_answers_for_the_caller_only(conn, world, app_settings):
    ask = "select is_owner_account() as owner"
    assert query(conn, world.admin, ask) == [{"owner": False}]  # unset: nobody
    app_settings("owner_email", email_of(conn, world.admin))
    assert query(conn, world.admin, ask) == [{"owner": True}]
    assert query(conn, world.learner, ask) == [{"owner": False}]
    assert query(conn, None, ask, role="anon") == [{"owner": False}]


def test_site_contact_is_public(conn, world, app_settings):
    ask = "select get_site_contact()::jsonb as contact"
    assert query(conn, None, ask, role="anon") == [{"contact": {"whatsapp_number": None, "email": None}}]
    app_settings("contact_whatsapp", "+33 6 12 34 56 78")
    app_settings("contact_email", "contact@example.com")
    expected = {"whatsapp_number": "+33 6 12 34 56 78", "email": "contact@example.com"}
    assert query(conn, None, ask, role="anon") == [{"contact": expected}]
    assert query(conn, world.learner, ask) == [{"contact": expected}]


@pytest.fixture(scope="module")
def configured_server(conn, world, database_url: str) -> Iterator[harness.LiveServer]:
    env = {"SUPALITE_APP_CONTACT_ADMIN_EMAIL": email_of(conn, world.admin),
           "SUPALITE_APP_OWNER_EMAIL": email_of(conn, world.admin),
           "SUPALITE_APP_CONTACT_WHATSAPP": "+221771234567",
           "SUPALITE_APP_CONTACT_EMAIL": "ecole@example.com"}
    server = harness.start_server(database_url, extra_env=env)
    yield server
    server.stop()


def rpc(server: harness.LiveServer, name: str, token: str | None) -> httpx.Response:
    headers = {"apikey": server.anon_key, "Authorization": f"Bearer {token or server.anon_key}"}
    return httpx.post(f"{server.url}/rest/v1/rpc/{name}", json={}, headers=headers)


def test_through_rest_with_settings_from_the_environment(configured_server, world):
    learner = user_token(configured_server.settings, str(world.learner))
    admin = user_token(configured_server.settings, str(world.admin))
    res = rpc(configured_server, "get_contact_admin", learner)
    assert res.status_code == 200 and res.json() == [{"id": str(world.admin), "full_name": "Admin"}]
    assert "@" not in res.text
    assert rpc(configured_server, "get_contact_admin", None).status_code == 401
    assert rpc(configured_server, "is_owner_account", admin).json() is True
    assert rpc(configured_server, "is_owner_account", learner).json() is False
    assert rpc(configured_server, "get_site_contact", None).json() == {"whatsapp_number": "+221771234567",
                                                                      "email": "ecole@example.com"}
