"""The response stage: a plan's result as the HTTP answer (PostgREST's Response.hs): status,
Content-Range, Location, Preference-Applied, the body in the negotiated media type, and the
`response.status` / `response.headers` settings functions may set."""

from __future__ import annotations

import csv
import io
import json
from typing import Any
from urllib.parse import quote

import orjson

from server.rest import errors
from server.rest.api_request.types import MediaType
from server.rest.executor import Result
from server.rest.headers import function_headers
from server.rest.plan import CallPlan, MutatePlan, Plan, ReadPlan

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
    page_total = result.page_total
    total = read_total(plan, result)
    return Answer(range_status(plan.offset, page_total, total), rows_body(result.body, plan.media, page_total),
                  {"content-type": plan.media.content_type,
                   "content-range": content_range(plan.offset, page_total, total)})


def read_total(plan: ReadPlan, result: Result) -> int | None:
    """The total of Prefer: count (PostgREST's resultSetWTotal): exact counts every row;
    planned is the planner's estimate; estimated is the exact count up to db-max-rows, and
    beyond it (or with no max-rows at all) the larger of that count and the estimate."""
    if plan.count == "planned":
        return planned_rows(result)
    if plan.count == "estimated" and (plan.max_rows is None or (result.total or 0) > plan.max_rows):
        planned = planned_rows(result)
        return max(result.total or 0, planned) if planned is not None else result.total
    return result.total


def planned_rows(result: Result) -> int | None:
    """"Plan Rows" of the top node of EXPLAIN (FORMAT JSON) of the count query."""
    if not result.estimate:
        return None
    explained = orjson.loads(result.estimate[0][0] or "[]")
    rows = explained[0]["Plan"]["Plan Rows"] if explained else None
    return int(rows) if isinstance(rows, (int, float)) else None


def mutate_answer(plan: MutatePlan, result: Result) -> Answer:
    """As PostgREST's Response.hs: a create answers 201, or 200 when a merge-duplicates upsert
    inserted nothing; PUT 201 or 200 likewise with its representation, else 204; updates
    and deletes 200 with a representation, else 204. Content-Range: `*/total` for creates and
    deletes, the changed range for updates, none for PUT."""
    total, page_total = result.total, result.page_total
    inserted = result.inserted if plan.counts_inserted else None
    headers: dict[str, str] = {}
    if plan.mutation == "update":
        headers["content-range"] = content_range(0, page_total, total)
    elif plan.mutation != "upsert":
        headers["content-range"] = f"*/{'*' if total is None else total}"
    if plan.mutation == "create":
        status = 200 if plan.counts_inserted and (inserted or 0) <= 0 else 201
    elif plan.returning:
        status = 201 if plan.mutation == "upsert" and (inserted or 0) > 0 else 200
    else:
        status = 204
    if plan.returning:
        headers["content-type"] = plan.media.content_type
        return Answer(status, rows_body(result.body, plan.media, page_total), headers)
    if plan.location and page_total == 1:
        headers["location"] = location(plan.table.name, plan.table.pk, orjson.loads(result.body)[0])
    return Answer(status, b"", headers)


def location(table: str, pk: list[str], row: dict[str, Any]) -> str:
    """PostgREST's Location of a created row: its key as filters (`is.null` for a NULL), each
    part URL-encoded as http-types' renderSimpleQuery does."""
    def value(v: Any) -> str:
        if v is None:
            return "is.null"
        return "eq." + (v if isinstance(v, str) else orjson.dumps(v).decode())
    return f"/{table}?" + "&".join(quote(k, safe="") + "=" + quote(value(row.get(k)), safe="") for k in pk)


def call_answer(plan: CallPlan, result: Result) -> Answer:
    """As PostgREST's call response: Content-Range and status from the page and the count of
    the call's rows (one row for a function not returning a set), 204 for a void function."""
    fn, media = plan.fn, plan.media
    total, body = result.total, result.body
    page_total = result.page_total if fn.returns_set else 1
    if plan.void:
        return Answer(204, b"", {"content-range": content_range(plan.offset, page_total, total)})
    if plan.tree is not None and media.kind in ("csv", "geojson"):
        out = body.encode()  # rows built by PostgreSQL
    elif not fn.returns_set and plan.tree is not None:
        # a function returning one composite value answers an object
        out = (body[1:-1] if result.page_total == 1 else "null").encode()
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
        out.headers.update(extra)
    if applied:
        out.headers["preference-applied"] = ", ".join(applied)
    return out

CORS_HEADERS = {
    "access-control-allow-origin": "*",
    "access-control-expose-headers": ("Content-Encoding, Content-Location, Content-Range, Content-Type, Date, Location, Server,"
                                      " Transfer-Encoding, Range-Unit, Preference-Applied"),
}


def response_headers(own: dict[str, str]) -> dict[str, str]:
    """The headers a response carries besides Content-Length: CORS, then the answer's own
    (a preflight's, or a function's, replace the CORS defaults)."""
    return {**CORS_HEADERS, **own}


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
                extra.update(function_headers([(str(k), v)]))
        except ValueError:
            raise errors.guc_headers_error() from None
    return status, extra


def rows_body(body: str, media: MediaType, page_total: int) -> bytes:
    """The body of a relation's rows: CSV and GeoJSON come built by PostgreSQL."""
    if media.kind in ("csv", "geojson"):
        return body.encode()
    return shape_body(body, media, page_total)


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
