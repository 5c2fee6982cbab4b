"""Shape the HTTP answer: status, Content-Range, Preference-Applied, media types and the
`response.status` / `response.headers` GUCs functions may set."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import orjson

from server.rest import errors
from server.rest.request import MediaType

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
            raise errors.ApiError(500, "PGRST112", "response.status guc must be a valid status code") from None
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
            raise errors.ApiError(500, "PGRST111", "response.headers guc must be a JSON array composed of objects"
                                                   " with a single key and a string value") from None
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
