"""Request inputs of the storage routes: the caller (its JWT), JSON bodies read under a
size bound, and their fields (and query parameters) type-checked and bounded before they
cost database time.

Errors are storage-api's: JSON-schema style messages (`body/limit must be integer`) in
the storage error format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import orjson
from starlette.requests import Request

from server.core.body import declared_length, read_bounded
from server.core.caller import MissingToken, verified_caller
from server.core.jwt import JwtError
from server.core.request_context import RequestContext
from server.storage import errors

if TYPE_CHECKING:
    from server.core.context import AppContext

MAX_JSON_BYTES = 1024 * 1024  # Fastify's default body limit, which storage-api keeps
MAX_ITEMS = 1000  # storage-api's bound on the objects of one bulk request
MAX_TEXT = 1024  # a name, prefix or search string: object names are at most 1024 bytes
MAX_INT = 2**31 - 1  # what the SQL functions (int) take
MAX_LIST_LIMIT = 10_000


def caller_of(request: Request, ctx: AppContext) -> RequestContext:
    """The caller, from the request's JWT: every handler asks first, before reading a body.
    As storage-api's jwt hook: no token at all, or a bad one, is AccessDenied (the apikey
    header stands in for a missing Authorization, as Supabase's gateway does)."""
    try:
        caller = verified_caller(ctx.keys, request.headers, required=True)
    except MissingToken:
        raise errors.missing_jwt() from None
    except JwtError as exc:
        raise errors.access_denied(str(exc)) from None
    return RequestContext.of(caller, request.method, request.url.path, dict(request.headers))


async def json_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, refused past MAX_JSON_BYTES without reading further."""
    raw = await read_bounded(request.stream(), declared_length(request.headers), MAX_JSON_BYTES,
                             errors.body_too_large)
    if not raw:
        return {}
    try:
        body = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise errors.invalid_request("Body is not valid JSON") from None
    if not isinstance(body, dict):
        raise errors.invalid_request("body must be object")
    return body


def text(body: Mapping[str, Any], name: str, *, required: bool = True, default: str = "",
         max_length: int = MAX_TEXT, where: str = "body") -> str:
    value = body.get(name)
    if value is None:
        if required:
            raise errors.invalid_request(f"{where} must have required property '{name}'")
        return default
    if not isinstance(value, str) or (required and not value):
        raise errors.invalid_request(f"{where}/{name} must be string")
    if len(value) > max_length:
        raise errors.invalid_request(f"{where}/{name} must NOT have more than {max_length} characters")
    return value


def integer(value: Any, name: str, *, default: int, minimum: int = 0, maximum: int = MAX_INT,
            where: str = "body") -> int:
    """An integer field: JSON integers (or integral numbers) and numeric strings, as
    storage-api's schema coerces them, within [minimum, maximum]."""
    if value is None or value == "":
        return default
    if isinstance(value, str):
        value = value.strip()
        if not (value.lstrip("-").isdigit() and len(value) <= 20):
            raise errors.invalid_parameter(name, f"{where}/{name} must be integer")
        value = int(value)
    if isinstance(value, float) and value.is_integer() and abs(value) < 2**63:
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise errors.invalid_parameter(name, f"{where}/{name} must be integer")
    if value < minimum:
        raise errors.invalid_parameter(name, f"{where}/{name} must be >= {minimum}")
    if value > maximum:
        raise errors.invalid_parameter(name, f"{where}/{name} must be <= {maximum}")
    return value


def boolean(value: object, name: str, default: bool = False) -> bool:
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if value in ("true", "false"):
        return value == "true"
    raise errors.invalid_parameter(name, f"body/{name} must be boolean")


def string_list(body: dict[str, Any], name: str, *, max_items: int = MAX_ITEMS) -> list[str]:
    """A required non-empty list of (bounded) strings, at most `max_items` of them."""
    value = body.get(name)
    if value is None:
        raise errors.invalid_request(f"body must have required property '{name}'")
    if not isinstance(value, list) or not all(isinstance(v, str) and len(v) <= MAX_TEXT for v in value):
        raise errors.invalid_request(f"body/{name} must be array of strings")
    if not value:
        raise errors.invalid_request(f"body/{name} must NOT have fewer than 1 items")
    if len(value) > max_items:
        raise errors.too_many_items(max_items)
    return value


def sort_by(body: dict[str, Any]) -> tuple[str, str]:
    """(column, order) of a list request's optional `sortBy`."""
    sort = body.get("sortBy")
    if sort is None:
        return "name", "asc"
    if not isinstance(sort, dict):
        raise errors.invalid_request("body/sortBy must be object")
    column = text(sort, "column", required=False, default="name", max_length=64) or "name"
    order = text(sort, "order", required=False, default="asc", max_length=8).lower() or "asc"
    if order not in ("asc", "desc"):
        raise errors.invalid_request("body/sortBy/order must be equal to one of the allowed values")
    return column, order


def choice(params: Mapping[str, Any], name: str, allowed: tuple[str, ...], where: str = "body") -> str | None:
    """An optional enumerated field (None when not given), refused as storage-api's schema refuses it."""
    value = params.get(name)
    if value is None:
        return None
    if not isinstance(value, str) or value not in allowed:
        raise errors.invalid_request(f"{where}/{name} must be equal to one of the allowed values")
    return value


def sort_by_v2(body: dict[str, Any]) -> tuple[str | None, str | None]:
    """(column, order) of list-v2's optional `sortBy`: its column is required and one of
    name/updated_at/created_at, its order asc or desc; None where not given."""
    sort = body.get("sortBy")
    if sort is None:
        return None, None
    if not isinstance(sort, dict):
        raise errors.invalid_request("body/sortBy must be object")
    if sort.get("column") is None:
        raise errors.invalid_request("body/sortBy must have required property 'column'")
    column = choice(sort, "column", ("name", "updated_at", "created_at"), "body/sortBy")
    return column, choice(sort, "order", ("asc", "desc"), "body/sortBy")
