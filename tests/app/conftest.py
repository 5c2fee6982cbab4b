"""A small world per test module: admin, learners, courses (public, private with and
without schedule), lessons, a book; all created as the owner."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import psycopg
import pytest

from tests.app.personas import create_user, owner


@dataclass
class World:
    admin: uuid.UUID
    learner: uuid.UUID        # no access
    member: uuid.UUID         # course_access to both private courses, book access
    granted: uuid.UUID        # one lesson of the private course granted
    full: uuid.UUID           # full_access_users
    public_course: uuid.UUID
    private_course: uuid.UUID   # with an unlock schedule
    plain_course: uuid.UUID     # private, no schedule
    public_lesson: uuid.UUID
    private_lessons: list[uuid.UUID]
    plain_lesson: uuid.UUID
    book: uuid.UUID


@pytest.fixture(scope="module")
def conn(database_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(database_url) as connection:
        yield connection


def _one(conn: psycopg.Connection, query: str, params: object) -> uuid.UUID:
    return owner(conn, query + " returning id", params)[0]["id"]


@pytest.fixture(scope="module")
def world(conn: psycopg.Connection) -> World:
    admin = create_user(conn, "admin", admin=True)
    learner = create_user(conn, "learner")
    member = create_user(conn, "member")
    granted = create_user(conn, "granted")
    full = create_user(conn, "full")
    public_course = _one(conn, "insert into courses (title, visibility, created_by) values ('Public course', 'public', %s)", [admin])
    private_course = _one(conn, "insert into courses (title, visibility, created_by) values ('Private course', 'private', %s)", [admin])
    plain_course = _one(conn, "insert into courses (title, visibility, created_by) values ('Plain course', 'private', %s)", [admin])
    public_lesson = _one(conn, "insert into course_content (course_id, title, file_type, file_path) values (%s, 'Lesson pub', 'pdf', 'pub/a.pdf')", [public_course])
    private_lessons = [
        _one(conn, "insert into course_content (course_id, title, file_type, file_path) values (%s, %s, 'pdf', %s)",
             [private_course, f"Lesson {i}", f"priv/{i}.pdf"])
        for i in range(5)
    ]
    plain_lesson = _one(conn, "insert into course_content (course_id, title, file_type, video_embed_url) values (%s, 'Video one', 'video', 'https://player.example/embed/1')", [plain_course])
    owner(conn, "insert into course_unlock_schedules (course_id, unlock_interval_days, lessons_per_unlock) values (%s, 2, 1)", [private_course])
    for course in (private_course, plain_course):
        owner(conn, "insert into course_access (user_id, course_id, granted_by) values (%s, %s, %s)", [member, course, admin])
    owner(conn, "insert into user_content_progress (user_id, course_id, content_id) values (%s, %s, %s)", [granted, private_course, private_lessons[3]])
    owner(conn, "insert into full_access_users (user_id, granted_by) values (%s, %s)", [full, admin])
    book = _one(conn, "insert into books (title, file_path, cover_url, created_by) values ('Grammar', 'grammar.pdf', 'books/grammar.jpg', %s)", [admin])
    owner(conn, "insert into user_book_access (user_id, book_id, granted_by) values (%s, %s, %s)", [member, book, admin])
    return World(admin, learner, member, granted, full, public_course, private_course, plain_course,
                 public_lesson, private_lessons, plain_lesson, book)
