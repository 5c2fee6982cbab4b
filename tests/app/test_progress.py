"""get_course_progress: watched (content_views) over unlocked (get_user_unlocked_content);
a grant unlocks a lesson but never completes it. get_course_summary: what anyone may read
of a course by its id."""

from __future__ import annotations

import psycopg
import pytest

from tests.app.personas import owner, query


def progress(conn, uid, about, course=None, role="authenticated"):
    rows = query(conn, uid, "select * from public.get_course_progress(user_id => %s, course_id => %s)",
                 [about, course], role=role)
    return {r["course_id"]: (r["watched_count"], r["unlocked_count"], r["lesson_count"], r["percent"], r["completed"])
            for r in rows}


def view(conn, uid, content):
    query(conn, uid, "insert into content_views (user_id, content_id) values (%s, %s)", [uid, content])


def test_a_granted_lesson_is_unlocked_not_completed(conn, world):
    # one lesson of five granted one by one, never opened
    assert progress(conn, world.granted, world.granted, world.private_course) == {world.private_course: (0, 1, 5, 0, False)}
    view(conn, world.granted, world.private_lessons[3])
    assert progress(conn, world.granted, world.granted, world.private_course) == {world.private_course: (1, 1, 5, 100, False)}


def test_watching_every_lesson_completes_the_course(conn, world):
    # course access, no schedule: the whole course is unlocked
    assert progress(conn, world.member, world.member, world.plain_course)[world.plain_course] == (0, 1, 1, 0, False)
    view(conn, world.member, world.plain_lesson)
    assert progress(conn, world.member, world.member, world.plain_course)[world.plain_course] == (1, 1, 1, 100, True)


def test_the_schedule_decides_what_is_unlocked(conn, world):
    # access granted just now, one lesson every 2 days: the first lesson only
    before = progress(conn, world.member, world.member, world.private_course)[world.private_course]
    assert before[1:3] == (1, 5)
    view(conn, world.member, world.private_lessons[0])
    assert progress(conn, world.member, world.member, world.private_course)[world.private_course] == (1, 1, 5, 100, False)


def test_a_view_of_a_lesson_no_longer_unlocked_does_not_count(conn, world):
    lesson = world.private_lessons[2]
    owner(conn, "insert into user_content_progress (user_id, content_id) values (%s, %s)", [world.learner, lesson])
    view(conn, world.learner, lesson)
    assert progress(conn, world.learner, world.learner, world.private_course)[world.private_course][:2] == (1, 1)
    owner(conn, "delete from user_content_progress where user_id = %s and content_id = %s", [world.learner, lesson])
    assert progress(conn, world.learner, world.learner, world.private_course)[world.private_course][:2] == (0, 0)


def test_the_list_holds_the_courses_with_something_unlocked(conn, world):
    listed = progress(conn, world.member, world.member)
    assert set(listed) == {world.public_course, world.private_course, world.plain_course}
    assert set(progress(conn, world.learner, world.learner)) == {world.public_course}


def test_a_learner_sees_only_their_own_progress(conn, world):
    assert progress(conn, world.learner, world.member) == {}
    assert progress(conn, world.learner, world.member, world.plain_course) == {}
    # admins and the service role: anyone's
    assert progress(conn, world.admin, world.member, world.plain_course)[world.plain_course] == (1, 1, 1, 100, True)
    assert progress(conn, None, world.member, world.plain_course, role="service_role")[world.plain_course][4] is True
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        progress(conn, None, world.member, role="anon")


def test_the_summary_of_a_private_course_is_public(conn, world):
    # visitors cannot read the private course row, but its summary by id
    assert query(conn, None, "select id from courses where id = %s", [world.private_course], role="anon") == []
    rows = query(conn, None, "select * from public.get_course_summary(course_id => %s)", [world.private_course], role="anon")
    assert len(rows) == 1
    assert set(rows[0]) == {"id", "title", "description", "visibility", "cover_url", "lesson_count", "created_at"}
    assert (rows[0]["title"], rows[0]["visibility"], rows[0]["lesson_count"]) == ("Private course", "private", 5)
    missing = "00000000-0000-4000-8000-00000000dead"
    assert query(conn, None, "select * from public.get_course_summary(course_id => %s)", [missing], role="anon") == []
