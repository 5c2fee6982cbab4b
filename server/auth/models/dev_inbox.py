"""The auth.dev_inbox table: mails and SMS a dev server keeps instead of sending them, read at /inbox."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection
from psycopg.rows import dict_row


async def insert(conn: AsyncConnection, *, recipient: str, subject: str, kind: str, otp: str, link: str,
                 text_body: str, html_body: str) -> None:
    await conn.execute(
        "insert into auth.dev_inbox (recipient, subject, kind, otp, link, text_body, html_body)"
        " values (%s, %s, %s, %s, %s, %s, %s)", [recipient, subject, kind, otp, link, text_body, html_body])


async def latest(conn: AsyncConnection, recipient: str, limit: int) -> list[dict[str, Any]]:
    """The newest messages, of one recipient (case-insensitive) or of all when `recipient` is ''."""
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(
            "select id, created_at, recipient, subject, kind, otp, link, text_body, html_body from auth.dev_inbox"
            " where (%(email)s = '' or lower(recipient) = lower(%(email)s)) order by id desc limit %(limit)s",
            {"email": recipient, "limit": limit})
        return await cur.fetchall()


async def by_id(conn: AsyncConnection, message_id: int) -> dict[str, Any] | None:
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute("select * from auth.dev_inbox where id = %s", [message_id])
        return await cur.fetchone()


async def clear(conn: AsyncConnection) -> None:
    await conn.execute("delete from auth.dev_inbox")
