"""The dev inbox at /inbox: an HTML page and a JSON API shaped like Mailpit's.

GET /inbox                      HTML list (?email= filters by recipient)
GET /inbox/api/v1/messages      {"total", "messages": [...]} newest first (?email=, ?limit=)
GET /inbox/api/v1/search        Mailpit's ?query=to:<address>
GET /inbox/api/v1/message/{id}  one message with its Text and HTML
DELETE /inbox/api/v1/messages   empty the inbox
"""

from __future__ import annotations

import html
from typing import Any

import orjson
from psycopg.rows import dict_row
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from server.auth.users import timestamp
from server.context import AppContext

_LIST = ("select id, created_at, recipient, subject, kind, otp, link, text_body, html_body from auth.dev_inbox"
         " where (%(email)s = '' or lower(recipient) = lower(%(email)s)) order by id desc limit %(limit)s")


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


def inbox_app(ctx: AppContext) -> Starlette:
    async def rows(email: str, limit: int) -> list[dict[str, Any]]:
        async with ctx.admin_pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute(_LIST, {"email": email, "limit": limit})
            return await cur.fetchall()

    def limit_of(request: Request) -> int:
        raw = request.query_params.get("limit", "50")
        return max(1, min(500, int(raw))) if raw.isdigit() else 50

    async def messages(request: Request) -> Response:
        found = await rows(request.query_params.get("email", ""), limit_of(request))
        return _json({"total": len(found), "messages": [_message(r, full=True) for r in found]})

    async def search(request: Request) -> Response:
        query = request.query_params.get("query", "")
        email = query.removeprefix("to:").strip().strip('"') if query.startswith("to:") else ""
        found = await rows(email, limit_of(request))
        return _json({"total": len(found), "messages": [_message(r, full=True) for r in found]})

    async def message(request: Request) -> Response:
        raw = request.path_params["message_id"]
        if not raw.isdigit():
            return _json({"error": "message not found"}, 404)
        async with ctx.admin_pool.connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            await cur.execute("select * from auth.dev_inbox where id = %s", [int(raw)])
            row = await cur.fetchone()
        if row is None:
            return _json({"error": "message not found"}, 404)
        return _json(_message(row, full=True))

    async def clear(request: Request) -> Response:
        async with ctx.admin_pool.connection() as conn:
            await conn.execute("delete from auth.dev_inbox")
            await conn.commit()
        return _json({})

    async def page(request: Request) -> HTMLResponse:
        email = request.query_params.get("email", "")
        found = await rows(email, limit_of(request))
        items = "".join(
            f"<article><header><strong>{html.escape(r['subject'])}</strong> to {html.escape(r['recipient'])}"
            f" <small>{html.escape(timestamp(r['created_at']) or '')}</small></header>{r['html_body']}</article><hr>"
            for r in found) or "<p>No mail yet.</p>"
        return HTMLResponse(f"<!doctype html><html><head><meta charset='utf-8'><title>Inbox</title></head>"
                            f"<body><h1>Inbox</h1>{items}</body></html>")

    return Starlette(routes=[
        Route("/", page),
        Route("/api/v1/messages", messages, methods=["GET"]),
        Route("/api/v1/messages", clear, methods=["DELETE"]),
        Route("/api/v1/search", search),
        Route("/api/v1/message/{message_id}", message),
    ])
