"""PostgREST's error model: PGRSTxxx codes with their HTTP statuses, and SQLSTATE -> HTTP.

Shapes follow PostgREST's Error.hs: every error body is `{code, message, details, hint}`.
"""

from __future__ import annotations

from typing import Any

import orjson
from psycopg import errors as pg_errors

from server.rest.headers import function_headers


class ApiError(Exception):
    """An error answered to the client as PostgREST would."""

    def __init__(self, status: int, code: str, message: str, details: Any = None, hint: Any = None,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
        self.headers = headers or {}

    def body(self) -> bytes:
        return orjson.dumps({"code": self.code, "details": self.details, "hint": self.hint, "message": self.message})


# -- connection errors (PGRST0xx) -----------------------------------------------------------

def connection_error() -> ApiError:
    """The database is down, frozen or restarting. PostgREST puts libpq's message in
    `details`; it names internal hosts and ports, so it is left out here."""
    return ApiError(503, "PGRST000", "Database connection error. Retrying the connection.")


def client_error() -> ApiError:
    return ApiError(503, "PGRST001", "Database client error. Retrying the connection.")


def schema_cache_not_loaded() -> ApiError:
    return ApiError(503, "PGRST002", "Could not query the database for the schema cache. Retrying.")


def pool_timeout() -> ApiError:
    return ApiError(504, "PGRST003", "Timed out acquiring connection from connection pool.")


# -- request errors (PGRST1xx) ------------------------------------------------------------

def parse_error(where: str, text: str, column: int, details: str, line: int = 1) -> ApiError:
    """A query parameter PostgREST's parser rejects, in its words: Parsec's source name and
    position as the message, Parsec's `unexpected ... expecting ...` as the details."""
    return ApiError(400, "PGRST100", f'"failed to parse {where} ({text})" (line {line}, column {column})', details)


def rpc_method(method: str) -> ApiError:
    return ApiError(405, "PGRST101", f"Cannot use the {method} method on RPC")



def invalid_body(message: str) -> ApiError:
    return ApiError(400, "PGRST102", message)


def payload_too_large(limit: int) -> ApiError:
    """A body over the server's bound. PostgREST has no such error (it leaves the bound to a
    proxy), so no PGRST1xx code is taken: PGRST413 names the HTTP status and cannot collide
    with PostgREST's numbering. The connection stays open: the HTTP server discards the rest
    of the body as it arrives, and the client reads its 413 instead of a reset connection."""
    return ApiError(413, "PGRST413", "Payload too large",
                    f"The request body is larger than the {limit} bytes this server accepts",
                    "Send the rows in several smaller requests")


def invalid_range(details: str) -> ApiError:
    return ApiError(416, "PGRST103", "Requested range not satisfiable", details)


def unacceptable_schema(schema: str, exposed: tuple[str, ...]) -> ApiError:
    return ApiError(406, "PGRST106", f"Invalid schema: {schema}", None,
                    "Only the following schemas are exposed: " + ", ".join(exposed))


def media_type_error(types: list[str]) -> ApiError:
    return ApiError(406, "PGRST107", "None of these media types are available: " + ", ".join(types))


def not_embedded(resource: str) -> ApiError:
    return ApiError(400, "PGRST108", f"'{resource}' is not an embedded resource in this request", None,
                    f"Verify that '{resource}' is included in the 'select' query parameter.")


def singularity_error(count: int) -> ApiError:
    return ApiError(406, "PGRST116", "Cannot coerce the result to a single JSON object",
                    f"The result contains {count} rows")


def unsupported_method(method: str) -> ApiError:
    return ApiError(405, "PGRST117", f"Unsupported HTTP method: {method}")


def limit_no_order() -> ApiError:
    return ApiError(400, "PGRST109", "A 'limit' was applied without an explicit 'order'", None,
                    "Apply an 'order' using unique column(s)")


def put_with_limit() -> ApiError:
    return ApiError(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT")


def put_filters() -> ApiError:
    return ApiError(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators")


def put_payload_mismatch() -> ApiError:
    return ApiError(400, "PGRST115", "Payload values do not match URL in primary key column(s)")


def related_order_not_to_one(origin: str, target: str) -> ApiError:
    return ApiError(400, "PGRST118", f"A related order on '{target}' is not possible",
                    f"'{origin}' and '{target}' do not form a many-to-one or one-to-one relationship")


def unacceptable_filter(target: str) -> ApiError:
    return ApiError(400, "PGRST120", f"Bad operator on the '{target}' embedded resource",
                    "Only is null or not is null filters are allowed on embedded resources")


def raise_pgrst_error(details: str, hint: str) -> ApiError:
    return ApiError(500, "PGRST121", 'Could not parse JSON in the "RAISE SQLSTATE \'PGRST\'" error', details, hint)


def invalid_preferences(prefs: list[str]) -> ApiError:
    return ApiError(400, "PGRST122", "Invalid preferences given with handling=strict",
                    "Invalid preferences: " + ", ".join(prefs))


def aggregates_not_allowed() -> ApiError:
    return ApiError(400, "PGRST123", "Use of aggregate functions is not allowed")


def max_affected_violation(count: int) -> ApiError:
    return ApiError(400, "PGRST124", "Query result exceeds max-affected preference constraint",
                    f"The query affects {count} rows")


def invalid_resource_path() -> ApiError:
    return ApiError(404, "PGRST125", "Invalid path specified in request URL")


def not_implemented(details: str) -> ApiError:
    return ApiError(400, "PGRST127", "Feature not implemented", details)


def guc_headers_error() -> ApiError:
    return ApiError(500, "PGRST111", "response.headers guc must be a JSON array composed of objects"
                                     " with a single key and a string value")


def guc_status_error() -> ApiError:
    return ApiError(500, "PGRST112", "response.status guc must be a valid status code")


# -- schema cache errors (PGRST2xx) -------------------------------------------------------

def relationship_not_found(parent: str, name: str, schema: str, hint: str | None) -> ApiError:
    details = (f"Searched for a foreign key relationship between '{parent}' and '{name}'"
               + (f" using the hint '{hint}'" if hint else "") + f" in the schema '{schema}', but no matches were found.")
    return ApiError(400, "PGRST200", f"Could not find a relationship between '{parent}' and '{name}' in the schema cache",
                    details)


def ambiguous_embed(parent: str, name: str, details: list[dict[str, str]], targets: list[str]) -> ApiError:
    return ApiError(300, "PGRST201",
                    f"Could not embed because more than one relationship was found for '{parent}' and '{name}'",
                    details, f"Try changing '{name}' to one of the following: " + ", ".join(f"'{t}'" for t in targets)
                    + ". Find the desired relationship in the 'details' key.")


def function_not_found(message: str, details: str, hint: str | None) -> ApiError:
    return ApiError(404, "PGRST202", message, details, hint)


def ambiguous_function(signatures: list[str]) -> ApiError:
    return ApiError(300, "PGRST203", "Could not choose the best candidate function between: " + ", ".join(signatures),
                    None, "Try renaming the parameters or the function itself in the database so function overloading"
                    " can be resolved")

def table_not_found(schema: str, name: str, hint: str | None) -> ApiError:
    return ApiError(404, "PGRST205", f"Could not find the table '{schema}.{name}' in the schema cache", None, hint)


def column_not_found(rel: str, col: str) -> ApiError:
    return ApiError(400, "PGRST204", f"Could not find the '{col}' column of '{rel}' in the schema cache")


# -- JWT (PGRST3xx) -----------------------------------------------------------------------

def jwt_error(message: str) -> ApiError:
    code = "PGRST303" if message == "JWT expired" else "PGRST301"
    return ApiError(401, code, message, headers={"WWW-Authenticate": f'Bearer error="invalid_token", error_description="{message}"'})


# -- internal ----------------------------------------------------------------------------

def internal_error() -> ApiError:
    """Anything unexpected: logged with its traceback, never shown to the client."""
    return ApiError(500, "PGRSTX00", "Internal server error")


# -- PostgreSQL errors --------------------------------------------------------------------

def sqlstate_status(sqlstate: str, message: str, authed: bool) -> int:
    """HTTP status of a PostgreSQL error, as PostgREST's mapSQLtoHTTP."""
    exact = {"23503": 409, "23505": 409, "25006": 405, "53400": 500, "57P01": 503, "P0001": 400, "42P01": 404,
             "42P17": 500}
    if sqlstate in exact:
        return exact[sqlstate]
    if sqlstate == "21000":
        return 400 if message.endswith("requires a WHERE clause") else 500
    if sqlstate == "22023":
        return 401 if message.startswith("role") and message.endswith("does not exist") else 400
    if sqlstate == "42883":
        return 406 if message.startswith("function xmlagg(") else 404
    if sqlstate == "42501":
        return 403 if authed else 401
    if sqlstate.startswith("PT"):
        try:
            status = int(sqlstate[2:])
        except ValueError:
            return 500
        return status if 100 <= status <= 599 else 500
    prefixes = {"08": 503, "09": 500, "0L": 403, "0P": 403, "25": 500, "28": 403, "2D": 500, "38": 500,
                "39": 500, "3B": 500, "40": 500, "53": 503, "54": 500, "55": 500, "57": 500, "58": 500,
                "F0": 500, "HV": 500, "P0": 500, "XX": 500}
    return prefixes.get(sqlstate[:2], 400)


def from_pg_error(exc: pg_errors.Error, authed: bool) -> ApiError:
    """Turn a psycopg error into PostgREST's response (incl. RAISE SQLSTATE 'PGRST')."""
    diag = exc.diag
    sqlstate = diag.sqlstate or ""
    message = diag.message_primary or str(exc)
    if not sqlstate:
        return client_error()
    if sqlstate == "PGRST":
        return _raise_pgrst(message, diag.message_detail)
    status = sqlstate_status(sqlstate, message, authed)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return ApiError(status, sqlstate, message, diag.message_detail, diag.message_hint, headers)


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _is_text(value: Any, optional: bool = False) -> bool:
    return isinstance(value, str) or (optional and value is None)


def _is_status(value: Any) -> bool:
    """Aeson's Int (a JSON number without fraction, never a boolean), and an HTTP status."""
    whole = type(value) is int or (isinstance(value, float) and value.is_integer())
    return whole and 100 <= value <= 599


_MESSAGE_HINT = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
_DETAIL_HINT = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."


def _raise_pgrst(message: str, detail: str | None) -> ApiError:
    """`RAISE SQLSTATE 'PGRST'`, decoded as PostgREST's parseRaisePGRST: MESSAGE is
    {code, message, details?, hint?} of strings, DETAIL {status: int, status_text?, headers:
    {name: string}}; anything else is PGRST121."""
    body = _json_object(message)
    if body is None or not (_is_text(body.get("code")) and _is_text(body.get("message"))
                            and _is_text(body.get("details"), True) and _is_text(body.get("hint"), True)):
        return raise_pgrst_error(f"Invalid JSON value for MESSAGE: '{message}'", _MESSAGE_HINT)
    if detail is None:
        return raise_pgrst_error("DETAIL is missing in the RAISE statement", _DETAIL_HINT)
    resp = _json_object(detail)
    headers = resp.get("headers") if resp is not None else None
    if (resp is None or not _is_status(resp.get("status")) or not _is_text(resp.get("status_text"), True)
            or not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values())):
        return raise_pgrst_error(f"Invalid JSON value for DETAIL: '{detail}'", _DETAIL_HINT)
    try:
        safe = function_headers(headers.items())
    except ValueError:
        return raise_pgrst_error(f"Invalid JSON value for DETAIL: '{detail}'", _DETAIL_HINT)
    return ApiError(int(resp["status"]), body["code"], body["message"], body.get("details"), body.get("hint"), safe)
