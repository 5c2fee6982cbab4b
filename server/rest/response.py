"""The response stage: a plan's result as the HTTP answer (PostgREST's Response.hs): status,
Content-Range, Location, Preference-Applied, the body in the negotiated media type, and the
`response.status` / `response.headers` settings functions may set."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import orjson

from server.rest import errors
from server.rest.executor import Result
from server.rest.plan import CallPlan, MutatePlan, Plan, ReadPlan
from server.rest.request import MediaType

JSON_UTF8 = "application/json; charset=utf-8"


class Answer:
    """A finished response: status, headers, body bytes."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = headers or {}


def answer(plan: Plan, result: Result) -> Answer:
    if plan.media.kind == "plan":
        return explained(result, plan.media)
    if isinstance(plan, ReadPlan):
        out = read_answer(plan, result)
    elif isinstance(plan, MutatePlan):
        out = mutate_answer(plan, result)
    else:
        out = call_answer(plan, result)
    return finish(out, result, plan.applied)


def error_answer(err: errors.ApiError) -> Answer:
    return Answer(err.status, err.body(), {"content-type": JSON_UTF8, **err.headers})


def openapi_answer(document: bytes) -> Answer:
    return Answer(200, document, {"content-type": "application/openapi+json; charset=utf-8"})


def preflight_answer(request_headers: str | None) -> Answer:
    """CORS preflight (OPTIONS): every origin, method and requested header."""
    return Answer(200, b"", {
        "access-control-allow-origin": "*",
        "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD",
        "access-control-allow-headers": request_headers or "*",
        "access-control-max-age": "86400",
    })


def read_answer(plan: ReadPlan, result: Result) -> Answer:
    total, page_total = result.total, result.page_total
    return Answer(range_status(plan.offset, page_total, total), shape_body(result.body, plan.media, page_total),
                  {"content-type": plan.media.content_type,
                   "content-range": content_range(plan.offset, page_total, total)})


def mutate_answer(plan: MutatePlan, result: Result) -> Answer:
    total, page_total = result.total, result.page_total
    if plan.mutation == "create":
        headers = {"content-range": f"*/{'*' if total is None else total}"}
    else:
        headers = {"content-range": content_range(0, page_total, total)}
    if plan.returning:
        headers["content-type"] = plan.media.content_type
        return Answer(plan.status, shape_body(result.body, plan.media, page_total), headers)
    if plan.location and page_total == 1:
        first = orjson.loads(result.body)[0]
        headers["location"] = f"/{plan.table.name}?" + "&".join(f"{k}=eq.{first.get(k)}" for k in plan.table.pk)
    return Answer(plan.status, b"", headers)


def call_answer(plan: CallPlan, result: Result) -> Answer:
    """As PostgREST's call response: Content-Range and status from the page and the count of
    the call's rows (one row for a function not returning a set), 204 for a void function."""
    fn, media = plan.fn, plan.media
    total, body = result.total, result.body
    page_total = result.page_total if fn.returns_set else 1
    if plan.void:
        return Answer(204, b"", {"content-range": content_range(plan.offset, page_total, total)})
    if not fn.returns_set and plan.tree is not None:
        # a function returning one composite value answers an object
        body = body[1:-1] if result.page_total == 1 else "null"
        out = shape_body(body, media, page_total) if media.kind == "csv" else body.encode()
    elif media.kind == "csv" or (media.kind == "object" and fn.returns_set):
        out = shape_body(body, media, page_total)
    else:
        out = body.encode()
    return Answer(range_status(plan.offset, page_total, total), out,
                  {"content-type": media.content_type, "content-range": content_range(plan.offset, page_total, total)})


def explained(result: Result, media: MediaType) -> Answer:
    """EXPLAIN's output: one JSON document, or the text plan's lines."""
    if media.plan_format == "json":
        out = orjson.dumps(orjson.loads(result.rows[0][0] or "null"))
    else:
        out = "\n".join(row[0] or "" for row in result.rows).encode()
    return Answer(200, out, {"content-type": media.content_type})


def finish(out: Answer, result: Result, applied: tuple[str, ...]) -> Answer:
    """Functions' response.status / response.headers settings, then Preference-Applied."""
    headers_setting, status_setting = result.headers_setting, result.status_setting
    if headers_setting is not None or status_setting is not None:
        status, extra = guc_overrides(headers_setting, status_setting)
        if status is not None:
            out.status = status
        for k, v in extra.items():
            out.headers[k.lower()] = v
    if applied:
        out.headers["preference-applied"] = ", ".join(applied)
    return out

CORS_HEADERS = {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": ("Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server,"
                                      " Transfer-Encoding, Range-Unit, Preference-Applied"),
}


def content_range(offset: int, page_total: int, total: int | None) -> str:
    total_s = "*" if total is None else str(total)
    if page_total <= 0:
        return f"*/{total_s}"
    return f"{offset}-{offset + page_total - 1}/{total_s}"


def range_status(offset: int, page_total: int, total: int | None) -> int:
    """200, or 206 when the known total holds more rows than the page; 416 past the end."""
    if total is None:
        return 200
    if offset > 0 and offset >= total and not (total == 0 and offset == 0):
        raise errors.invalid_range(f"An offset of {offset} was requested, but there are only {total} rows.")
    if page_total < total:
        return 206
    return 200


def guc_overrides(headers_guc: str | None, status_guc: str | None) -> tuple[int | None, dict[str, str]]:
    status = None
    extra: dict[str, str] = {}
    if status_guc:
        try:
            status = int(status_guc)
            if not 100 <= status <= 599:
                raise ValueError
        except ValueError:
            raise errors.guc_status_error() from None
    if headers_guc:
        try:
            parsed = orjson.loads(headers_guc)
            if not isinstance(parsed, list):
                raise ValueError
            for item in parsed:
                if not isinstance(item, dict) or len(item) != 1:
                    raise ValueError
                (k, v), = item.items()
                if not isinstance(v, str):
                    raise ValueError
                extra[str(k)] = v
        except ValueError:
            raise errors.guc_headers_error() from None
    return status, extra


def shape_body(body: str, media: MediaType, page_total: int) -> bytes:
    """The JSON array from PostgreSQL as the media type asks (object, CSV...)."""
    if media.kind == "object":
        if page_total != 1:
            raise errors.singularity_error(page_total)
        return body[1:-1].encode() if body.startswith("[") else body.encode()
    if media.kind == "csv":
        return to_csv(body)
    return body.encode()


def to_csv(body: str) -> bytes:
    # numbers keep their text (8.00 stays 8.00), as PostgreSQL wrote them
    rows = json.loads(body, parse_float=str, parse_int=str)
    if not isinstance(rows, list):
        rows = [rows]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if rows and isinstance(rows[0], dict):
        header = list(rows[0].keys())
        writer.writerow(header)
        for row in rows:
            writer.writerow([_csv_value(row.get(h)) for h in header])
    text = out.getvalue()
    return text[:-1].encode() if text.endswith("\n") else text.encode()


def _csv_value(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dict, list)):
        return orjson.dumps(value).decode()
    return str(value)
