"""Parse an HTTP request into an ApiRequest: query string, headers and body. No database.

Laid out as PostgREST's ApiRequest (src/PostgREST/ApiRequest.hs and ApiRequest/): `parse`
here checks the method, schema and resource path in PostgREST's order and gathers the
parts; types.py holds what a parsed request is made of, grammar.py the Parsec grammar of
the query string, readers.py its direct readers, query_params.py the query string,
preferences.py the Prefer, Accept and Range headers, payload.py the body, bounds.py the
bounds on what a request may nest or count.
"""

from __future__ import annotations

import asyncio
from collections.abc import Hashable, Mapping
from typing import Any
from urllib.parse import unquote

from server.rest import errors
from server.rest.api_request.payload import NO_BODY, RAW_CALL_BODIES, _payload_with_shape
from server.rest.api_request.preferences import _accepted, _preferences, parse_range
from server.rest.api_request.query_params import _query_params
from server.rest.api_request.types import ApiRequest, QueryParams

READ_METHODS = ("GET", "HEAD")
_MUTATIONS = {"POST": "create", "PATCH": "update", "PUT": "upsert", "DELETE": "delete"}
_METHODS = frozenset((*READ_METHODS, *_MUTATIONS))
_CALL_METHODS = frozenset((*READ_METHODS, "POST"))

# Bodies up to this size parse inline (the usual few-row write stays on the fast path);
# larger ones in a worker thread, so that a 10 MB CSV does not stall every other request.
INLINE_PARSE_BYTES = 64 * 1024


async def parse(method: str, path: str, query_string: str, headers: Mapping[str, str], body: bytes,
                schemas: tuple[str, ...], plan_enabled: bool) -> ApiRequest:
    """The ApiRequest of an HTTP request, in PostgREST's order of checks: method, schema
    (profile headers), resource path, Accept, Prefer, query string, Range, body."""
    if method not in _METHODS:
        raise errors.unsupported_method(method)
    read = method in READ_METHODS
    schema = _schema(headers.get("accept-profile" if read else "content-profile"), schemas)
    stripped = path.strip("/")
    parts = stripped.split("/") if stripped else []
    if "%" in stripped:
        parts = [unquote(p) for p in parts]
    if not parts:
        if not read:
            raise errors.unsupported_method(method)
        action, target = "schema", ""
    elif len(parts) == 2 and parts[0] == "rpc":
        if method not in _CALL_METHODS:
            raise errors.rpc_method(method)
        action, target = "call", parts[1]
    elif len(parts) == 1:
        action, target = ("read" if read else _MUTATIONS[method]), parts[0]
    else:
        raise errors.invalid_resource_path()
    media = _accepted(headers.get("accept"), plan_enabled)
    prefer = _preferences(headers.get("prefer"))
    query = await _query_params(query_string, action == "call" and read) if action != "schema" else QueryParams()
    rng = None
    if (action == "read" or (action == "call" and method == "GET")) and headers.get("range-unit", "items") == "items":
        rng = parse_range(headers.get("range"))
    content_type = ""
    payload: Any = None
    shape: Hashable | None = NO_BODY
    if not read:
        content_type = headers.get("content-type", "application/json").split(";")[0].strip().lower()
    if action == "call" and content_type in RAW_CALL_BODIES:
        shape = None  # the raw body is the argument of a function's one unnamed parameter
    elif not read and action != "delete" and (action != "call" or body.strip()):
        if len(body) <= INLINE_PARSE_BYTES:
            payload, shape = _payload_with_shape(content_type, body)
        else:
            payload, shape = await asyncio.to_thread(_payload_with_shape, content_type, body)
    return ApiRequest(method, action, target, schema, query, prefer, media, rng, content_type, payload, body, shape)


def _schema(profile: str | None, schemas: tuple[str, ...]) -> str:
    """The schema a request addresses: its Accept-Profile / Content-Profile, else the first."""
    if profile is None:
        return schemas[0]
    if profile not in schemas:
        raise errors.unacceptable_schema(profile, schemas)
    return profile
