"""server/rest/errors.py: PostgreSQL errors as PostgREST answers them.

The status table is PostgREST's `mapSQLtoHTTP` (src/PostgREST/Error.hs, reached from
`pgErrorStatus`), row by row; `RAISE SQLSTATE 'PGRST'` follows its `parseRaisePGRST`.
The errors given to `from_pg_error` are raised by a real PostgreSQL, so their diagnostics
are the ones psycopg hands the server.
"""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import psycopg
import pytest
from psycopg import sql

from server.rest import errors
from server.rest.errors import from_pg_error, sqlstate_status

# (SQLSTATE, message, HTTP status) in mapSQLtoHTTP's order; the message only matters for
# the rows that look at it (21000, 22023, 42883).
STATUS_TABLE = [
    ("08000", "", 503), ("08006", "", 503), ("08P01", "", 503),  # connection exception
    ("09000", "", 500),  # triggered action exception
    ("0L000", "", 403), ("0LP01", "", 403),  # invalid grantor
    ("0P000", "", 403),  # invalid role specification
    ("23503", "", 409),  # foreign_key_violation
    ("23505", "", 409),  # unique_violation
    ("25006", "", 405),  # read_only_sql_transaction (before the 25 class)
    ("21000", "more than one row returned by a subquery used as an expression", 500),
    ("21000", "DELETE requires a WHERE clause", 400),  # pg-safeupdate
    ("21000", "UPDATE requires a WHERE clause", 400),
    ("22023", 'role "ghost" does not exist', 401),  # the JWT's role does not exist
    ("22023", "invalid value for parameter", 400),
    ("22023", 'unrecognized role "ghost"', 400),
    ("25000", "", 500), ("25001", "", 500), ("25P02", "", 500),  # invalid transaction state
    ("28000", "", 403), ("28P01", "", 403),  # invalid authorization specification
    ("2D000", "", 500),  # invalid transaction termination
    ("38000", "", 500), ("38001", "", 500), ("38003", "", 500),  # external routine exception
    ("39000", "", 500), ("39P01", "", 500),  # external routine invocation
    ("3B000", "", 500), ("3B001", "", 500),  # savepoint exception
    ("40000", "", 500), ("40001", "", 500), ("40P01", "", 500),  # transaction rollback
    ("53400", "", 500),  # configuration_limit_exceeded (before the 53 class)
    ("53000", "", 503), ("53100", "", 503), ("53200", "", 503), ("53300", "", 503),  # insufficient resources
    ("54000", "", 500), ("54001", "", 500),  # program limit exceeded
    ("55000", "", 500), ("55P03", "", 500),  # object not in prerequisite state
    ("57P01", "", 503),  # admin_shutdown (before the 57 class)
    ("57000", "", 500), ("57014", "", 500), ("57P02", "", 500), ("57P03", "", 500),  # operator intervention
    ("58000", "", 500), ("58030", "", 500),  # system error
    ("F0000", "", 500), ("F0001", "", 500),  # configuration file error
    ("HV000", "", 500), ("HV00N", "", 500),  # foreign data wrapper error
    ("P0001", "", 400),  # RAISE's default code (before the P0 class)
    ("P0000", "", 500), ("P0002", "", 500), ("P0003", "", 500), ("P0004", "", 500),  # PL/pgSQL error
    ("XX000", "", 500), ("XX001", "", 500), ("XX002", "", 500),  # internal error
    ("42883", "function xmlagg(integer) does not exist", 406),
    ("42883", "function api.nope(integer) does not exist", 404),
    ("42883", "operator does not exist: public.color ~~* unknown", 404),
    ("42P01", "", 404),  # undefined_table
    ("42P17", "", 500),  # infinite recursion in policies or rules
    # everything else is the client's fault
    ("22P02", "", 400), ("22001", "", 400), ("22003", "", 400), ("22007", "", 400), ("23502", "", 400),
    ("23514", "", 400), ("23P01", "", 400), ("42703", "", 400), ("42704", "", 400), ("42804", "", 400),
    ("42P10", "", 400), ("0A000", "", 400), ("42601", "", 400), ("2201B", "", 400),
]


@pytest.mark.parametrize(("sqlstate", "message", "status"), STATUS_TABLE)
def test_every_row_of_postgrests_status_table(sqlstate: str, message: str, status: int) -> None:
    assert sqlstate_status(sqlstate, message, authed=True) == status
    assert sqlstate_status(sqlstate, message, authed=False) == status


def test_insufficient_privilege_is_401_without_a_user_and_403_with_one() -> None:
    assert sqlstate_status("42501", "permission denied for table courses", authed=False) == 401
    assert sqlstate_status("42501", "permission denied for table courses", authed=True) == 403


@pytest.mark.parametrize(("sqlstate", "status"), [
    ("PT401", 401), ("PT402", 402), ("PT418", 418), ("PT451", 451), ("PT500", 500), ("PT503", 503), ("PT204", 204),
    ("PT100", 100), ("PT599", 599),
    # Not a number: PostgREST's `readMaybe` fails and it answers 500.
    ("PTabc", 500), ("PT4A1", 500),
    # PostgREST would send these numbers as they are; no HTTP server can, so 500 here.
    ("PT000", 500), ("PT099", 500), ("PT600", 500), ("PT999", 500),
])
def test_pt_codes_choose_their_http_status(sqlstate: str, status: int) -> None:
    assert sqlstate_status(sqlstate, "custom", authed=True) == status


# -- from_pg_error, on errors raised by PostgreSQL ----------------------------------------

@pytest.fixture(scope="module")
def pg(owner_url: str) -> Iterator[psycopg.Connection]:
    with psycopg.connect(owner_url, autocommit=True) as conn:
        yield conn


def raised(conn: psycopg.Connection, sqlstate: str, message: str, detail: str | None = None,
           hint: str | None = None) -> psycopg.Error:
    """The psycopg error of `RAISE SQLSTATE ... USING MESSAGE/DETAIL/HINT` inside a DO block."""
    options = [sql.SQL("message = {}").format(sql.Literal(message))]
    if detail is not None:
        options.append(sql.SQL("detail = {}").format(sql.Literal(detail)))
    if hint is not None:
        options.append(sql.SQL("hint = {}").format(sql.Literal(hint)))
    body = sql.SQL("begin raise sqlstate {} using {}; end").format(sql.Literal(sqlstate), sql.SQL(", ").join(options))
    statement = sql.SQL("do {}").format(sql.Literal(body.as_string(conn)))
    with pytest.raises(psycopg.Error) as exc:
        conn.execute(statement)
    return exc.value


def test_a_postgres_error_keeps_its_code_message_details_and_hint(pg: psycopg.Connection) -> None:
    err = from_pg_error(raised(pg, "P0001", "Leçon verrouillée", "until 2030-01-01", "wait"), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint, err.headers) == (
        400, "P0001", "Leçon verrouillée", "until 2030-01-01", "wait", {})
    assert orjson.loads(err.body()) == {"code": "P0001", "message": "Leçon verrouillée", "details": "until 2030-01-01",
                                        "hint": "wait"}


def test_a_real_constraint_error(pg: psycopg.Connection) -> None:
    pg.execute("create temporary table if not exists t_unique (id int primary key)")
    pg.execute("insert into t_unique values (1) on conflict do nothing")
    with pytest.raises(psycopg.Error) as exc:
        pg.execute("insert into t_unique values (1)")
    err = from_pg_error(exc.value, authed=False)
    assert (err.status, err.code, err.message) == (409, "23505", 'duplicate key value violates unique constraint "t_unique_pkey"')
    assert err.details == "Key (id)=(1) already exists." and err.hint is None


def test_insufficient_privilege_without_a_user_asks_for_a_bearer_token(pg: psycopg.Connection) -> None:
    anonymous = from_pg_error(raised(pg, "42501", "permission denied for table courses"), authed=False)
    assert (anonymous.status, anonymous.headers) == (401, {"WWW-Authenticate": "Bearer"})
    signed_in = from_pg_error(raised(pg, "42501", "permission denied for table courses"), authed=True)
    assert (signed_in.status, signed_in.headers) == (403, {})
    missing_role = from_pg_error(raised(pg, "22023", 'role "ghost" does not exist'), authed=True)
    assert (missing_role.status, missing_role.headers) == (401, {"WWW-Authenticate": "Bearer"})


def test_pt_code_from_a_function(pg: psycopg.Connection) -> None:
    err = from_pg_error(raised(pg, "PT402", "Payment Required", "Quota exceeded", "Upgrade your plan"), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint) == (
        402, "PT402", "Payment Required", "Quota exceeded", "Upgrade your plan")


# -- RAISE SQLSTATE 'PGRST': the function chooses the whole response -----------------------

def test_raise_pgrst_sets_status_body_and_headers(pg: psycopg.Connection) -> None:
    message = '{"code":"123","message":"Payment Required","details":"Quota exceeded","hint":"Upgrade your plan"}'
    detail = '{"status":402,"headers":{"X-Powered-By":"Nerd Rage","Cache-Control":"no-store"}}'
    err = from_pg_error(raised(pg, "PGRST", message, detail), authed=False)
    assert (err.status, err.code, err.message, err.details, err.hint) == (
        402, "123", "Payment Required", "Quota exceeded", "Upgrade your plan")
    # names lower-cased (server.rest.headers), so that one a function sets replaces the server's
    assert err.headers == {"x-powered-by": "Nerd Rage", "cache-control": "no-store"}


def test_raise_pgrst_headers_are_made_safe(pg: psycopg.Connection) -> None:
    message = '{"code":"A","message":"m"}'
    framed = from_pg_error(raised(pg, "PGRST", message, '{"status":400,"headers":{"Content-Length":"0","X-A":"b"}}'),
                           authed=True)
    assert (framed.status, framed.headers) == (400, {"x-a": "b"})  # the server frames the body itself
    split = '{"status":400,"headers":{"X-A":"b\\r\\nSet-Cookie: s=1"}}'
    refused = from_pg_error(raised(pg, "PGRST", message, split), authed=True)
    assert (refused.status, refused.code, refused.headers) == (500, "PGRST121", {})


def test_raise_pgrst_optional_keys(pg: psycopg.Connection) -> None:
    err = from_pg_error(raised(pg, "PGRST", '{"code":"PT1","message":"m"}', '{"status":418,"headers":{}}'), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint, err.headers) == (418, "PT1", "m", None, None, {})
    # A 401 chosen by the function carries only the function's headers.
    err = from_pg_error(raised(pg, "PGRST", '{"code":"A","message":"m"}', '{"status":401,"headers":{}}'), authed=False)
    assert (err.status, err.headers) == (401, {})
    err = from_pg_error(raised(pg, "PGRST", '{"code":"A","message":"m","details":null,"hint":null}',
                               '{"status":400,"status_text":"Nope","headers":{}}'), authed=True)
    assert (err.status, err.details, err.hint) == (400, None, None)


MESSAGE_HINT = "MESSAGE must be a JSON object with obligatory keys: 'code', 'message' and optional keys: 'details', 'hint'."
DETAIL_HINT = "DETAIL must be a JSON object with obligatory keys: 'status', 'headers' and optional key: 'status_text'."
PGRST121 = "Could not parse JSON in the \"RAISE SQLSTATE 'PGRST'\" error"


@pytest.mark.parametrize("message", ["not json", "[1,2]", '"text"', '{"message":"no code"}', '{"code":"no message"}', "{}"])
def test_raise_pgrst_with_an_unreadable_message_is_pgrst121(pg: psycopg.Connection, message: str) -> None:
    err = from_pg_error(raised(pg, "PGRST", message, '{"status":400,"headers":{}}'), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint) == (
        500, "PGRST121", PGRST121, f"Invalid JSON value for MESSAGE: '{message}'", MESSAGE_HINT)


def test_raise_pgrst_without_detail_is_pgrst121(pg: psycopg.Connection) -> None:
    err = from_pg_error(raised(pg, "PGRST", '{"code":"A","message":"m"}'), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint) == (
        500, "PGRST121", PGRST121, "DETAIL is missing in the RAISE statement", DETAIL_HINT)


@pytest.mark.parametrize("detail", ["not json", "[]", '{"headers":{}}', '{"status":"x","headers":{}}'])
def test_raise_pgrst_with_an_unreadable_detail_is_pgrst121(pg: psycopg.Connection, detail: str) -> None:
    err = from_pg_error(raised(pg, "PGRST", '{"code":"A","message":"m"}', detail), authed=True)
    assert (err.status, err.code, err.message, err.details, err.hint, err.headers) == (
        500, "PGRST121", PGRST121, f"Invalid JSON value for DETAIL: '{detail}'", DETAIL_HINT, {})


# parseRaisePGRST decodes MESSAGE and DETAIL with Aeson into typed records: `code`,
# `message`, `details`, `hint` are Text, `status` an Int, `headers` an obligatory map of Text.
# errors.py checks only that the keys exist and coerces the rest.


@pytest.mark.parametrize("message", ['{"code":123,"message":"m"}', '{"code":"A","message":["m"]}',
                                     '{"code":"A","message":"m","details":{"a":1}}', '{"code":"A","message":"m","hint":7}'])
def test_raise_pgrst_message_values_must_be_text(pg: psycopg.Connection, message: str) -> None:
    err = from_pg_error(raised(pg, "PGRST", message, '{"status":400,"headers":{}}'), authed=True)
    assert (err.status, err.code, err.details) == (500, "PGRST121", f"Invalid JSON value for MESSAGE: '{message}'")


@pytest.mark.parametrize("detail", ['{"status":400}', '{"status":"404","headers":{}}', '{"status":404.5,"headers":{}}',
                                    '{"status":true,"headers":{}}', '{"status":400,"headers":{"X-A":1}}',
                                    '{"status":400,"headers":[]}'])
def test_raise_pgrst_detail_values_are_typed(pg: psycopg.Connection, detail: str) -> None:
    err = from_pg_error(raised(pg, "PGRST", '{"code":"A","message":"m"}', detail), authed=True)
    assert (err.status, err.code, err.details) == (500, "PGRST121", f"Invalid JSON value for DETAIL: '{detail}'")


def test_an_error_without_sqlstate_is_a_client_error() -> None:
    err = from_pg_error(psycopg.OperationalError("server closed the connection unexpectedly"), authed=True)
    assert (err.status, err.code, err.message) == (503, "PGRST001", "Database client error. Retrying the connection.")


def test_error_body_has_postgrests_four_keys() -> None:
    assert orjson.loads(errors.ApiError(400, "PGRST100", "m").body()) == {"code": "PGRST100", "details": None, "hint": None,
                                                                          "message": "m"}
