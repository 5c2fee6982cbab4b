"""profiles: created by the signup trigger; personal columns masked; admin-only fields."""

from __future__ import annotations

import psycopg
import pytest

from tests.app.personas import create_user, owner, query


def test_signup_metadata_makes_the_profile(conn, world):
    uid = create_user(conn, "meta", meta={"student_role": "avancé", "country": "Bénin"})
    row = owner(conn, "select * from profiles where id = %s", [uid])[0]
    assert (row["full_name"], row["country"], row["student_role"], row["role"], row["paid"]) == ("Meta", "Bénin", "avancé", "user", False)
    assert row["email"].startswith("meta-")


def test_student_role_defaults_to_debutant(conn, world):
    uid = create_user(conn, "plain", meta={"student_role": "nonsense"})
    assert owner(conn, "select student_role from profiles where id = %s", [uid])[0]["student_role"] == "debutant"


def test_user_reads_own_full_profile(conn, world):
    rows = query(conn, world.learner, "select * from profiles where id = %s", [world.learner])
    assert rows[0]["email"] and rows[0]["country"] == "France" and rows[0]["paid"] is False


def test_learner_cannot_read_another_learners_profile(conn, world):
    assert query(conn, world.learner, "select * from profiles where id = %s", [world.member]) == []


def test_peers_show_name_and_role_but_not_personal_fields(conn, world):
    owner(conn, "insert into content_comments (content_id, user_id, content) values (%s, %s, 'Hello')", [world.public_lesson, world.member])
    row = query(conn, world.learner, "select * from profiles where id = %s", [world.member])[0]
    assert row["full_name"] == "Member" and row["role"] == "user"
    assert (row["email"], row["country"], row["whatsapp_number"], row["paid"], row["expire_date"]) == (None, None, None, None, None)


def test_admin_reads_everyone_with_personal_fields(conn, world):
    rows = query(conn, world.admin, "select email, country from profiles where id = %s", [world.member])
    assert rows[0]["email"].startswith("member-") and rows[0]["country"] == "France"


def test_visitors_read_no_profiles(conn, world):
    assert query(conn, None, "select * from profiles", role="anon") == []


@pytest.mark.parametrize("assignment", ["role = 'admin'", "paid = true", "date_paid = now()", "expire_date = now()", "agent = true"])
def test_user_cannot_change_admin_only_fields(conn, world, assignment):
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, "update profiles set " + assignment + " where id = %s", [world.learner])


def test_user_edits_own_contact_fields(conn, world):
    rows = query(conn, world.learner, "update profiles set full_name = 'New Name', country = 'Togo', student_role = 'avancé'"
                 " where id = %s returning full_name, country", [world.learner])
    assert rows == [{"full_name": "New Name", "country": "Togo"}]


def test_user_cannot_edit_someone_else(conn, world):
    assert query(conn, world.learner, "update profiles set full_name = 'x' where id = %s returning id", [world.member]) == []


def test_admin_promotes_and_marks_paid(conn, world):
    target = create_user(conn, "promoted")
    rows = query(conn, world.admin, "update profiles set role = 'admin', paid = true, date_paid = now() where id = %s returning role, paid",
                 [target])
    assert rows == [{"role": "admin", "paid": True}]


def test_contact_admin_email_stays_private(conn, world):
    """Learners reach the contact admin through get_contact_admin(), never by e-mail."""
    admin_email = owner(conn, "select email from profiles where id = %s", [world.admin])[0]["email"]
    # session-level here; in production `alter database ... set app.contact_admin_email`
    with conn.transaction():
        conn.execute("select set_config('app.contact_admin_email', %s, false)", [admin_email])
    try:
        assert query(conn, world.learner, "select id, email from profiles where email = %s", [admin_email]) == []
        rows = query(conn, world.learner, "select email from profiles where id = %s", [world.admin])
        assert rows == [{"email": None}]
        assert query(conn, world.learner, "select id from get_contact_admin()") == [{"id": world.admin}]
    finally:
        with conn.transaction():
            conn.execute("select set_config('app.contact_admin_email', '', false)")


@pytest.mark.parametrize("assignment", ["email = 'stolen@example.com'", "id = gen_random_uuid()", "created_at = now()"])
@pytest.mark.parametrize("who", ["learner", "admin"])
def test_id_email_and_creation_date_are_refused_not_ignored(conn, world, assignment, who):
    """A write the view cannot carry out is an error, never a row reported as changed."""
    target = create_user(conn, "fixed-" + who)
    before = owner(conn, "select * from app_private.profiles where id = %s", [target])
    uid = target if who == "learner" else getattr(world, who)
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, uid, "update profiles set " + assignment + " where id = %s returning *", [target])
    assert owner(conn, "select * from app_private.profiles where id = %s", [target]) == before


def test_service_role_cannot_change_the_email_behind_auth(conn, world):
    target = create_user(conn, "service-target")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, None, "update profiles set email = 'x@example.com' where id = %s", [target], role="service_role")


def test_returned_row_is_the_stored_row(conn, world):
    target = create_user(conn, "stored")
    rows = query(conn, world.admin, "update profiles set full_name = 'Stored', paid = true where id = %s returning *", [target])
    stored = query(conn, world.admin, "select * from profiles where id = %s", [target])
    assert rows == stored and rows[0]["full_name"] == "Stored" and rows[0]["paid"] is True
