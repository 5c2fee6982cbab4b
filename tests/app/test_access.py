"""Books, courses, lessons, grants and the access RPCs, per persona."""

from __future__ import annotations

import psycopg
import pytest

from tests.app.personas import create_user, owner, query


def rpc(conn, uid, name, role="authenticated", **args):
    params = ", ".join(f"{key} => %({key})s" for key in args)
    return query(conn, uid, f"select * from public.{name}({params})", args, role=role)


def test_books_are_listed_to_everyone(conn, world):
    assert len(query(conn, None, "select id from books", role="anon")) >= 1
    assert len(query(conn, world.learner, "select id from books")) >= 1


def test_book_access_rpc(conn, world):
    assert rpc(conn, world.member, "user_has_book_access", user_id=world.member, book_id=world.book)[0]["user_has_book_access"] is True
    assert rpc(conn, world.learner, "user_has_book_access", user_id=world.learner, book_id=world.book)[0]["user_has_book_access"] is False
    assert rpc(conn, world.full, "user_has_book_access", user_id=world.full, book_id=world.book)[0]["user_has_book_access"] is True
    assert rpc(conn, world.admin, "user_has_book_access", user_id=world.admin, book_id=world.book)[0]["user_has_book_access"] is True


def test_no_probing_of_other_users(conn, world):
    assert rpc(conn, world.learner, "user_has_book_access", user_id=world.member, book_id=world.book)[0]["user_has_book_access"] is False
    assert rpc(conn, world.learner, "user_has_full_access", user_id=world.full)[0]["user_has_full_access"] is False
    assert rpc(conn, world.learner, "get_visible_courses", user_id=world.member) == []
    # admins and the service role may ask about anyone
    assert rpc(conn, world.admin, "user_has_full_access", user_id=world.full)[0]["user_has_full_access"] is True
    assert rpc(conn, None, "user_has_full_access", role="service_role", user_id=world.full)[0]["user_has_full_access"] is True


def test_course_access_rpc(conn, world):
    def has(uid, course):
        return rpc(conn, uid, "user_has_course_access", user_id=uid, course_id=course)[0]["user_has_course_access"]

    assert has(world.learner, world.public_course) is True
    assert has(world.learner, world.private_course) is False
    assert has(world.member, world.private_course) is True
    assert has(world.full, world.plain_course) is True
    assert has(world.admin, world.plain_course) is True


def test_visitors_see_public_courses_only(conn, world):
    ids = {r["id"] for r in query(conn, None, "select id from courses", role="anon")}
    assert world.public_course in ids and world.private_course not in ids


def test_signed_in_users_see_every_course(conn, world):
    ids = {r["id"] for r in rpc(conn, world.learner, "get_visible_courses", user_id=world.learner)}
    assert {world.public_course, world.private_course, world.plain_course} <= ids
    assert {world.public_course, world.private_course} <= {r["id"] for r in query(conn, world.learner, "select id from courses")}


def test_lessons_need_course_access(conn, world):
    assert query(conn, world.learner, "select id from course_content where course_id = %s", [world.private_course]) == []
    # The private course's schedule (1 lesson every 2 days, access granted now) opens lesson 0;
    # the plain course has no schedule: course access opens it all.
    assert [r["id"] for r in query(conn, world.member, "select id from course_content where course_id = %s", [world.private_course])] == world.private_lessons[:1]
    assert [r["id"] for r in query(conn, world.member, "select id from course_content where course_id = %s", [world.plain_course])] == [world.plain_lesson]
    assert len(query(conn, world.admin, "select id from course_content where course_id = %s", [world.private_course])) == 5
    assert [r["id"] for r in query(conn, None, "select id from course_content where course_id = %s", [world.public_course], role="anon")] == [world.public_lesson]


def test_a_granted_lesson_is_readable_alone(conn, world):
    rows = query(conn, world.granted, "select id from course_content where course_id = %s", [world.private_course])
    assert [r["id"] for r in rows] == [world.private_lessons[3]]
    listed = rpc(conn, world.granted, "get_visible_course_content", user_id=world.granted, course_id=world.private_course)
    assert [r["id"] for r in listed] == [world.private_lessons[3]]


def test_visible_course_content_is_in_course_order(conn, world):
    listed = rpc(conn, world.admin, "get_visible_course_content", user_id=world.admin, course_id=world.private_course)
    assert [r["id"] for r in listed] == world.private_lessons
    assert [r["order_index"] for r in listed] == [0, 1, 2, 3, 4]
    listed = rpc(conn, world.member, "get_visible_course_content", user_id=world.member, course_id=world.private_course)
    assert [r["id"] for r in listed] == world.private_lessons[:1]  # the schedule's first lesson


def test_only_admins_write_courses_and_lessons(conn, world):
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.member, "insert into courses (title) values ('Mine')")
    assert query(conn, world.member, "update courses set title = 'Hacked' where id = %s returning id", [world.private_course]) == []
    assert query(conn, world.member, "delete from course_content where course_id = %s returning id", [world.private_course]) == []
    rows = query(conn, world.admin, "insert into courses (title, visibility) values ('Admin course', 'private') returning created_by")
    assert rows[0]["created_by"] == world.admin


def test_course_title_needs_three_characters(conn, world):
    with pytest.raises(psycopg.errors.CheckViolation):
        query(conn, world.admin, "insert into courses (title) values ('ab')")


def test_grants_are_admin_only_and_unique(conn, world):
    target = create_user(conn, "grantee")
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, target, "insert into course_access (user_id, course_id, granted_by) values (%s, %s, %s)",
              [target, world.private_course, target])
    rows = query(conn, world.admin, "insert into course_access (user_id, course_id) values (%s, %s) returning granted_by",
                 [target, world.private_course])
    assert rows[0]["granted_by"] == world.admin
    with pytest.raises(psycopg.errors.UniqueViolation):
        query(conn, world.admin, "insert into course_access (user_id, course_id, granted_by) values (%s, %s, %s)",
              [target, world.private_course, world.admin])
    with pytest.raises(psycopg.errors.UniqueViolation):
        query(conn, world.admin, "insert into user_book_access (user_id, book_id, granted_by) values (%s, %s, %s)",
              [world.member, world.book, world.admin])


def test_progress_upsert_on_the_pair(conn, world):
    target = create_user(conn, "upserted")
    sql_text = ("insert into user_content_progress (user_id, course_id, content_id, unlocked_at) values (%s, %s, %s, now())"
                " on conflict (user_id, content_id) do update set unlocked_at = excluded.unlocked_at returning course_id")
    for _ in range(2):
        rows = query(conn, world.admin, sql_text, [target, world.private_course, world.private_lessons[0]])
        assert rows[0]["course_id"] == world.private_course


def test_order_index_goes_last_when_omitted(conn, world):
    course = query(conn, world.admin, "insert into courses (title) values ('Ordering') returning id")[0]["id"]
    indexes = [
        query(conn, world.admin, "insert into course_content (course_id, title, file_type, file_path) values (%s, %s, 'image', 'x.png') returning order_index",
              [course, f"Image {i}"])[0]["order_index"]
        for i in range(3)
    ]
    assert indexes == [0, 1, 2]


def test_comments_follow_the_lesson(conn, world):
    lesson = world.private_lessons[0]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, "insert into content_comments (content_id, user_id, content) values (%s, %s, 'hi')", [lesson, world.learner])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):  # not as someone else
        query(conn, world.member, "insert into content_comments (content_id, user_id, content) values (%s, %s, 'hi')", [lesson, world.learner])
    with pytest.raises(psycopg.errors.CheckViolation):
        query(conn, world.member, "insert into content_comments (content_id, user_id, content) values (%s, %s, '   ')", [lesson, world.member])
    comment = query(conn, world.member, "insert into content_comments (content_id, user_id, content) values (%s, %s, 'Question') returning id",
                    [lesson, world.member])[0]["id"]
    assert query(conn, world.learner, "select id from content_comments where id = %s", [comment]) == []
    reply = query(conn, world.admin, "insert into comment_replies (comment_id, user_id, content) values (%s, %s, 'Answer') returning id",
                  [comment, world.admin])[0]["id"]
    assert query(conn, world.learner, "select id from comment_replies where id = %s", [reply]) == []
    assert query(conn, world.member, "delete from comment_replies where id = %s returning id", [reply]) == []
    assert query(conn, world.admin, "delete from content_comments where id = %s returning id", [comment]) == [{"id": comment}]


def test_views_are_recorded_by_the_learner_only(conn, world):
    rows = query(conn, world.member, "insert into content_views (user_id, content_id) values (%s, %s) returning user_id",
                 [world.member, world.private_lessons[0]])
    assert rows == [{"user_id": world.member}]
    with pytest.raises(psycopg.errors.InsufficientPrivilege):  # still locked by the schedule
        query(conn, world.member, "insert into content_views (user_id, content_id) values (%s, %s)", [world.member, world.private_lessons[1]])
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        query(conn, world.learner, "insert into content_views (user_id, content_id) values (%s, %s)", [world.member, world.public_lesson])
    with pytest.raises(psycopg.errors.UniqueViolation):
        query(conn, world.member, "insert into content_views (user_id, content_id) values (%s, %s)", [world.member, world.private_lessons[0]])
    assert query(conn, world.learner, "select * from content_views where user_id = %s", [world.member]) == []


def test_deleting_a_book_removes_its_access_rows(conn, world):
    book = query(conn, world.admin, "insert into books (title, file_path) values ('Temp', 'temp.pdf') returning id")[0]["id"]
    query(conn, world.admin, "insert into user_book_access (user_id, book_id) values (%s, %s)", [world.member, book])
    query(conn, world.admin, "delete from books where id = %s", [book])
    assert owner(conn, "select count(*) as n from user_book_access where book_id = %s", [book]) == [{"n": 0}]


def test_deleting_rows_removes_their_stored_objects(conn, world):
    course = query(conn, world.admin, "insert into courses (title, cover_url) values ('Doomed', 'courses/doomed.jpg') returning id")[0]["id"]
    path = f"{course}/1_lesson.pdf"
    query(conn, world.admin, "insert into course_content (course_id, title, file_type, file_path) values (%s, 'Doomed lesson', 'pdf', %s)",
          [course, path])
    book = query(conn, world.admin, "insert into books (title, file_path, cover_url) values ('Doomed book', 'doomed.pdf', 'books/doomed.jpg')"
                 " returning id")[0]["id"]
    objects = [("course-content", path), ("covers", "courses/doomed.jpg"), ("books", "doomed.pdf"), ("covers", "books/doomed.jpg")]
    for bucket, name in objects:
        owner(conn, "insert into storage.objects (bucket_id, name) values (%s, %s)", [bucket, name])
    query(conn, world.admin, "delete from courses where id = %s", [course])
    query(conn, world.admin, "delete from books where id = %s", [book])
    left = owner(conn, "select count(*) as n from storage.objects where (bucket_id, name) in (select * from unnest(%s::text[], %s::text[]))",
                 [[b for b, _ in objects], [n for _, n in objects]])
    assert left == [{"n": 0}]
