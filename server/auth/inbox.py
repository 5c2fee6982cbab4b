"""The dev inbox at /inbox: an HTML page and a JSON API shaped like Mailpit's.

Only on a dev server without SMTP (server.auth.mail.inbox_enabled): anywhere else it does not
exist, since whoever reads it can sign in as any address it holds mail for.

GET /inbox, /inbox/             HTML list (?email= or ?phone= filters by recipient, ?limit= 1 to 500)
GET /inbox/api/v1/messages      {"total", "messages": [...]} newest first (?email=, ?limit=)
GET /inbox/api/v1/search        Mailpit's ?query=to:<address>
GET /inbox/api/v1/message/{id}  one message with its Text and HTML
DELETE /inbox/api/v1/messages   empty the inbox
"""

from __future__ import annotations

import html
import re
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route

from server.auth.mail import inbox_enabled
from server.auth.models import dev_inbox
from server.auth.models.users import timestamp
from server.auth.phone_numbers import format_phone
from server.core.context import AppContext

MAX_LIMIT = 500
_NUMBER = re.compile(r"[0-9]{1,18}")  # ASCII digits only, and within bigint



def _message(row: dict[str, Any], full: bool = False) -> dict[str, Any]:
    out = {"ID": str(row["id"]), "From": {"Name": "Supalite", "Address": "noreply@supalite.local"},
           "To": [{"Name": "", "Address": row["recipient"]}], "Subject": row["subject"],
           "Created": timestamp(row["created_at"]), "Snippet": row["text_body"][:200],
           "Kind": row["kind"], "OTP": row["otp"], "Link": row["link"]}
    if full:
        out.update({"Text": row["text_body"], "HTML": row["html_body"]})
    return out


def _json(body: Any, status: int = 200) -> Response:
    return Response(orjson.dumps(body), status_code=status, media_type="application/json")


def _bad_limit() -> Response:
    return _json({"error": f"limit must be an integer from 1 to {MAX_LIMIT}"}, 400)


def _recipient(request: Request) -> str:
    """?email=, or ?phone= in the form SMS are kept under (digits, no '+', no blanks)."""
    email = request.query_params.get("email", "")
    return email or format_phone(request.query_params.get("phone", ""))


def _limit(request: Request) -> int | None:
    """?limit= (default 50), or None when it is not an integer from 1 to MAX_LIMIT."""
    raw = request.query_params.get("limit", "50")
    return int(raw) if _NUMBER.fullmatch(raw) and 1 <= int(raw) <= MAX_LIMIT else None


class Inbox:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx

    async def rows(self, email: str, limit: int) -> list[dict[str, Any]]:
        async with self.ctx.admin_pool.connection() as conn:
            return await dev_inbox.latest(conn, email, limit)

    async def messages(self, request: Request) -> Response:
        limit = _limit(request)
        if limit is None:
            return _bad_limit()
        found = await self.rows(_recipient(request), limit)
        return _json({"total": len(found), "messages": [_message(r, full=True) for r in found]})

    async def search(self, request: Request) -> Response:
        limit = _limit(request)
        if limit is None:
            return _bad_limit()
        query = request.query_params.get("query", "")
        email = query.removeprefix("to:").strip().strip('"') if query.startswith("to:") else ""
        found = await self.rows(email, limit)
        return _json({"total": len(found), "messages": [_message(r, full=True) for r in found]})

    async def message(self, request: Request) -> Response:
        raw = request.path_params["message_id"]
        if not _NUMBER.fullmatch(raw):
            return _json({"error": "message not found"}, 404)
        async with self.ctx.admin_pool.connection() as conn:
            row = await dev_inbox.by_id(conn, int(raw))
        if row is None:
            return _json({"error": "message not found"}, 404)
        return _json(_message(row, full=True))

    async def clear(self, request: Request) -> Response:
        async with self.ctx.admin_pool.connection() as conn:
            await dev_inbox.clear(conn)
            await conn.commit()
        return _json({})

    async def page(self, request: Request) -> Response:
        limit = _limit(request)
        if limit is None:
            return _bad_limit()
        found = await self.rows(_recipient(request), limit)
        items = "".join(
            f"<article><header><strong>{html.escape(r['subject'])}</strong> to {html.escape(r['recipient'])}"
            f" <small>{html.escape(timestamp(r['created_at']) or '')}</small></header>{r['html_body']}</article><hr>"
            for r in found) or "<p>No mail yet.</p>"
        return HTMLResponse(f"<!doctype html><html><head><meta charset='utf-8'><title>Inbox</title></head>"
                            f"<body><h1>Inbox</h1>{items}</body></html>")


def inbox_routes(ctx: AppContext) -> list[BaseRoute]:
    """The app's routes for /inbox and what lies under it: none unless on a dev server."""
    if not inbox_enabled(ctx.settings):
        return []
    inbox = Inbox(ctx)
    return [Route("/inbox", inbox.page), Mount("/inbox", app=_app(inbox))]


def inbox_app(ctx: AppContext) -> Starlette:
    return _app(Inbox(ctx))


def _app(inbox: Inbox) -> Starlette:
    return Starlette(routes=[
        Route("/", inbox.page),
        Route("/api/v1/messages", inbox.messages, methods=["GET"]),
        Route("/api/v1/messages", inbox.clear, methods=["DELETE"]),
        Route("/api/v1/search", inbox.search),
        Route("/api/v1/message/{message_id}", inbox.message),
    ])
