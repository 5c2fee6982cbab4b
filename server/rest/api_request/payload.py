"""The body of a request (PostgREST's ApiRequest/Payload.hs): JSON, CSV and form bodies as
Python values, by Content-Type, and the body's shape, which decides whether its statement
can be planned once for every body alike."""

from __future__ import annotations

import csv
import io
from collections.abc import Hashable
from typing import Any
from urllib.parse import parse_qsl

import orjson

from server.rest import errors

JSON_TYPES = ("application/json", "", "application/vnd.pgrst.object+json", "application/vnd.pgrst.array+json")
RAW_CALL_BODIES = ("text/plain", "text/xml", "application/octet-stream")  # POST /rpc: taken as they are


def parse_json_body(body: bytes) -> Any:
    try:
        return orjson.loads(body) if body.strip() else None
    except orjson.JSONDecodeError as exc:
        raise errors.invalid_body("Empty or invalid json") from exc


def parse_csv_body(body: bytes) -> list[dict[str, Any]]:
    """CSV with a header line; the unquoted text NULL is SQL NULL, as in PostgREST."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise errors.invalid_body("Invalid CSV: not UTF-8") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:  # e.g. a field over csv's 128 KiB field limit
        raise errors.invalid_body(f"Invalid CSV: {exc}") from None
    if not rows:
        return []
    header = rows[0]
    out = []
    for row in rows[1:]:
        if len(row) != len(header):
            raise errors.invalid_body("All lines must have same number of fields")
        out.append({h: (None if v == "NULL" else v) for h, v in zip(header, row, strict=False)})
    return out


def parse_form_body(body: bytes) -> dict[str, str]:
    return dict(parse_qsl(body.decode("utf-8", "replace"), keep_blank_values=True))


def parse_payload(content_type: str, body: bytes) -> Any:
    """The body as Python values, by Content-Type (PostgREST's JSON, CSV and form bodies)."""
    if content_type == "text/csv":
        return parse_csv_body(body)
    if content_type == "application/x-www-form-urlencoded":
        return parse_form_body(body)
    if content_type in JSON_TYPES:
        return parse_json_body(body)
    raise errors.media_type_error([content_type])


def body_shape(payload: Any) -> Hashable | None:
    """What of a body shapes the statement: its keys (in order). None: not cacheable.

    The body itself is one bound parameter; only an object, or a non-empty array of objects
    that all have the same keys, is planned the same way for every body of that shape.
    """
    if type(payload) is dict:
        return ("o", tuple(payload))
    if type(payload) is list and payload and all(type(r) is dict for r in payload):
        keys = tuple(payload[0])
        keyset = set(keys)
        if all(len(r) == len(keys) and keyset.issuperset(r) for r in payload[1:]):
            return ("a", keys)
    return None


NO_BODY: tuple[str] = ("-",)  # the body shape of a request without one


def _payload_with_shape(content_type: str, body: bytes) -> tuple[Any, Hashable | None]:
    payload = parse_payload(content_type, body)
    return payload, body_shape(payload)
