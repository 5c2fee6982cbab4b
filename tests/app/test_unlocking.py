"""get_user_unlocked_content with a frozen clock (app.frozen_now read by app_private.app_now())."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import psycopg
import pytest

from tests.app.personas import create_user, owner, query

START = datetime(2025, 1, 10, 12, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def course(conn, world):
    """A private course of 6 lessons with a schedule; a learner granted access at START."""
    cid = owner(conn, "insert into courses (title, visibility) values ('Scheduled', 'private') returning id")[0]["id"]
    lessons = [owner(conn, "insert into course_content (course_id, title, file_type, file_path, order_index)"
                           " values (%s, %s, 'pdf', %s, %s) returning id", [cid, f"Part {i}", f"s/{i}.pdf", i])[0]["id"]
               for i in reversed(range(6))]
    lessons.reverse()
    owner(conn, "insert into course_unlock_schedules (course_id) values (%s)", [cid])
    learner = create_user(conn, "scheduled")
    owner(conn, "insert into course_access (user_id, course_id, created_at) values (%s, %s, %s)", [learner, cid, START])
    return cid, lessons, learner


def at_time(conn, at, sql, params):
    with conn.transaction():
        conn.execute("select set_config('app.frozen_now', %s, false)", [at.isoformat()])
    try:
        return sql(params)
    finally:
        with conn.transaction():
            conn.execute("select set_config('app.frozen_now', '', false)")


def unlocked(conn, uid, cid, at):
    """get_user_unlocked_content at `at`, checked against what RLS lets the user read then."""
    def read(_):
        granted = query(conn, uid, "select id from public.get_user_unlocked_content(user_id_param => %s, course_id_param => %s)",
                        [uid, cid])
        rows = query(conn, uid, "select id from course_content where course_id = %s order by order_index, created_at", [cid])
        assert rows == granted, "the function and the course_content policy disagree"
        return [r["id"] for r in granted]
    return at_time(conn, at, read, None)


def schedule(conn, cid, interval, per_unlock, delay, active=True):
    owner(conn, "update course_unlock_schedules set unlock_interval_days = %s, lessons_per_unlock = %s,"
                " start_delay_days = %s, is_active = %s where course_id = %s", [interval, per_unlock, delay, active, cid])


@pytest.mark.parametrize("interval, per_unlock, delay, elapsed_days, expected", [
    (1, 1, 0, 0, 1),        # first lesson at once
    (1, 1, 0, 2.5, 3),      # one more per whole day
    (3, 2, 0, 2.9, 2),      # still in the first period
    (3, 2, 0, 3, 4),        # second period starts exactly on day 3
    (2, 1, 5, 4.9, 0),      # nothing before the delay
    (2, 1, 5, 5, 1),        # delay over: first unlock
    (2, 1, 5, 9, 3),        # (9 - 5) / 2 = 2 more periods
    (1, 4, 0, 30, 6),       # capped by the lesson count
])
def test_schedule_unlocks_the_first_lessons(conn, course, interval, per_unlock, delay, elapsed_days, expected):
    cid, lessons, learner = course
    schedule(conn, cid, interval, per_unlock, delay)
    got = unlocked(conn, learner, cid, START + timedelta(days=elapsed_days))
    assert got == lessons[:expected]


def test_granted_lessons_are_always_unlocked(conn, course):
    cid, lessons, learner = course
    schedule(conn, cid, 1, 1, 10)
    owner(conn, "insert into user_content_progress (user_id, content_id) values (%s, %s) on conflict do nothing", [learner, lessons[4]])
    try:
        assert unlocked(conn, learner, cid, START + timedelta(days=1)) == [lessons[4]]
    finally:
        owner(conn, "delete from user_content_progress where user_id = %s and content_id = %s", [learner, lessons[4]])


def test_without_active_schedule_course_access_opens_every_lesson(conn, course):
    # What the course_content policy lets the learner read (the function and RLS agree).
    cid, lessons, learner = course
    schedule(conn, cid, 1, 1, 10, active=False)
    try:
        assert unlocked(conn, learner, cid, START) == lessons
    finally:
        schedule(conn, cid, 1, 1, 0)


def test_no_course_access_no_scheduled_lessons(conn, world, course):
    cid, _lessons, _ = course
    schedule(conn, cid, 1, 1, 0)
    assert unlocked(conn, world.learner, cid, START + timedelta(days=100)) == []


def test_admins_get_everything(conn, world, course):
    cid, lessons, _ = course
    assert unlocked(conn, world.admin, cid, START) == lessons


def test_nobody_asks_about_someone_else(conn, world, course):
    cid, _lessons, learner = course
    schedule(conn, cid, 1, 1, 0)
    assert query(conn, world.member, "select id from public.get_user_unlocked_content(%s, %s)", [learner, cid]) == []


def test_public_course_access_starts_at_profile_creation(conn, world):
    cid = owner(conn, "insert into courses (title, visibility) values ('Open', 'public') returning id")[0]["id"]
    first = owner(conn, "insert into course_content (course_id, title, file_type, file_path)"
                        " values (%s, 'Open 1', 'pdf', 'o1.pdf') returning id", [cid])[0]["id"]
    owner(conn, "insert into course_content (course_id, title, file_type, file_path) values (%s, 'Open 2', 'pdf', 'o2.pdf')", [cid])
    owner(conn, "insert into course_unlock_schedules (course_id, unlock_interval_days) values (%s, 7)", [cid])
    created = owner(conn, "select created_at from profiles where id = %s", [world.learner])[0]["created_at"]
    assert unlocked(conn, world.learner, cid, created + timedelta(days=1)) == [first]


def test_outline_dates_and_preview_agree_with_the_server(conn, world, course):
    cid, lessons, learner = course
    schedule(conn, cid, 3, 2, 1)
    outline = at_time(conn, START, lambda _: query(conn, learner, "select * from public.get_course_outline(%s)", [cid]), None)
    assert [o["id"] for o in outline] == lessons and not any(o["unlocked"] for o in outline)
    # 2 lessons after the 1-day delay, 2 more every 3 days: days 1, 1, 4, 4, 7, 7.
    assert [o["unlocks_at"] for o in outline] == [START + timedelta(days=d) for d in (1, 1, 4, 4, 7, 7)]
    for days in range(0, 9):
        preview = query(conn, world.admin, "select public.preview_unlock_schedule(%s, 3, 2, 1, %s) as n", [cid, days])[0]["n"]
        assert preview == len(unlocked(conn, learner, cid, START + timedelta(days=days))), days
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, learner, "select public.preview_unlock_schedule(%s, 3, 2, 1, 0)", [cid])
