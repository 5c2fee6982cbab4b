"""Call plans: GET, HEAD or POST on /rpc/<fn> (PostgREST's Plan.callReadPlan, findProc and
Plan/CallPlan.hs): which overload the argument names pick, how the arguments reach it, the
transaction it runs in, and how its result is read (a scalar, or rows embedded, filtered and
paged like a table's).

Arguments come from the query string (GET/HEAD) or the body (POST): a JSON object's keys (or
?columns=), a form's fields, or, for a function with one unnamed parameter, the raw body
(application/json for json/jsonb, text/plain for text, text/xml for xml,
application/octet-stream for bytea).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.rest import errors, fuzzy
from server.rest.api_request import READ_METHODS
from server.rest.api_request.payload import JSON_TYPES
from server.rest.api_request.types import ApiRequest, MediaType
from server.rest.body import dump
from server.rest.plan.config import PlanConfig
from server.rest.plan.read import ReadNode, applied_preferences, page, read_tree
from server.rest.plan.tx import Tx
from server.rest.schema_cache import Column, Function, Param, SchemaCache, Table

# Content types whose raw body is the argument of a function's one unnamed parameter of this type.
RAW_BODY_PARAM = {"text/plain": "text", "text/xml": "xml", "application/octet-stream": "bytea"}
_SINGLE_OBJECT_TYPES = ("json", "jsonb")


@dataclass(frozen=True, slots=True)
class CallArgs:
    """How the arguments reach the function (PostgREST's CallParams and CallArgs):

    - "none": called without arguments;
    - "direct": each given parameter bound to its own value (query string, form body);
      `values` in the order of `params`, a list of values for a variadic one;
    - "json": the given parameters read from the JSON `body` (an object, or the first
      object of an array);
    - "single": the function's one parameter takes `body` positionally (the raw body, or
      hex text for bytea).
    """

    kind: str
    params: tuple[Param, ...] = ()
    values: tuple[str | list[str], ...] = ()
    body: str | None = None
    from_body: bool = False  # `body` is the request's body (bound in the cached statement's body slot)


@dataclass(frozen=True, slots=True)
class CallPlan:
    fn: Function
    args: CallArgs
    tree: ReadNode | None  # rows of a composite or table result; None for a scalar
    limit: int | None
    offset: int
    count: bool
    media: MediaType
    applied: tuple[str, ...]
    tx: Tx
    cacheable: bool
    body_mode: str = "raw"  # what fills the cached statement's body slot: the body as sent, or re-encoded

    @property
    def void(self) -> bool:
        return self.fn.return_type == "void"

    @property
    def returns_rows(self) -> bool:
        """A composite result (a table's row type, a record of OUT/TABLE parameters)."""
        fn = self.fn
        return fn.returns_table is not None or fn.returns_composite or bool(fn.out_columns)


@dataclass(frozen=True, slots=True)
class _Given:
    """What a request gives as arguments: their names, and where the values are."""

    keys: tuple[str, ...]
    direct: dict[str, list[str]] | None = None  # query string or form fields (every value of each)
    json: str | None = None  # a JSON body (or the CSV body as JSON)
    raw: bytes | None = None  # a text, xml or binary body
    body_mode: str = "raw"


def plan_call(request: ApiRequest, cache: SchemaCache, config: PlanConfig) -> CallPlan:
    prefer, query = request.prefer, request.query
    read = request.method in READ_METHODS
    post = not read
    content = request.content_type if post else ""
    single_object = post and prefer.params == "single-object" and content in JSON_TYPES
    given = _given(request)
    fn = find_function(cache, request.schema, request.target, list(given.keys), content, post, single_object)
    args = _call_args(fn, given, single_object)
    rollback, tx_applied = config.rollback(prefer)
    applied = applied_preferences(prefer, tx_applied)
    tree = None
    if fn.returns_table is not None or fn.returns_composite or fn.out_columns:
        table = cache.tables.get(fn.returns_table) if fn.returns_table else None
        if table is None:
            table = Table(fn.schema, fn.name, "f", {c.name: _out_column(c) for c in fn.out_columns})
        tree = read_tree(cache, table, fn.name, query.select, query, config.aggregates_enabled)
    limit, offset = page(request)
    explain = request.media.kind == "plan"
    # GET and HEAD, and any call of a STABLE or IMMUTABLE function, run read-only: a VOLATILE
    # function called by GET that writes fails with PostgreSQL's 25006
    tx = Tx(read_only=read or fn.volatility != "v", rollback=rollback or explain,
            max_affected=prefer.max_affected if post and prefer.handling == "strict" else None)
    # a statement is kept for the next request of the same shape only when its values are all
    # in the key (query string) or are the body itself, bound whole
    cacheable = request.body_shape is not None and given.raw is None and (read or given.direct is None)
    return CallPlan(fn, args, tree, config.row_limit(limit), offset, prefer.count in ("exact", "estimated"),
                    request.media, applied, tx, cacheable, given.body_mode)


def _given(request: ApiRequest) -> _Given:
    """The argument names of a request and where their values are (PostgREST's payload keys
    of an RPC: the query string's on GET, the body's on POST)."""
    if request.method in READ_METHODS:
        args = request.query.rpc_args
        return _Given(tuple(args), direct=args)
    content = request.content_type
    if content in RAW_BODY_PARAM:
        return _Given((), raw=request.body)
    payload = request.payload
    if content == "application/x-www-form-urlencoded":
        fields = payload if isinstance(payload, dict) else {}
        return _Given(tuple(fields), direct={k: [v] for k, v in fields.items()})
    if content == "text/csv":
        rows = payload if isinstance(payload, list) else []
        return _Given(tuple(rows[0]) if rows else (), json=dump(rows), body_mode="dump")
    text = request.body.decode("utf-8", "replace")
    columns = request.query.columns
    if columns is not None:  # ?columns= names the arguments; the body is taken as it is
        return _Given(tuple(columns), json=text)
    if isinstance(payload, dict):
        return _Given(tuple(payload), json=text)
    if isinstance(payload, list):
        if not payload:
            return _Given((), json=text)
        first = payload[0]
        if not isinstance(first, dict) or any(not isinstance(r, dict) or r.keys() != first.keys() for r in payload):
            raise errors.invalid_body("All object keys must match")
        return _Given(tuple(first), json=text)
    if payload is None:  # no body: no arguments
        return _Given((), json=text)
    return _Given((), json="[]")  # a JSON scalar counts as an empty array, as in PostgREST


def _call_args(fn: Function, given: _Given, single_object: bool) -> CallArgs:
    params = fn.params
    if len(params) == 1 and (params[0].name == "" or single_object):
        return CallArgs("single", (params[0],), body=_positional(params[0], given), from_body=given.json is not None)
    names = set(given.keys)
    chosen = tuple(p for p in params if p.name in names)
    if not chosen:
        return CallArgs("none")
    if given.direct is not None:
        values = tuple(given.direct[p.name] if p.mode == "v" else given.direct[p.name][-1] for p in chosen)
        return CallArgs("direct", chosen, values)
    return CallArgs("json", chosen, body=given.json, from_body=True)


def _positional(param: Param, given: _Given) -> str:
    """The value of a function's one unnamed parameter: the body as sent (bytea as hex text)."""
    if given.raw is not None:
        if param.type == "bytea":
            return "\\x" + given.raw.hex()
        text = given.raw.decode("utf-8", "replace")
        if "\x00" in text:
            raise errors.ApiError(400, "22021", 'invalid byte sequence for encoding "UTF8": 0x00')
        return text
    if given.direct is not None:  # GET: the arguments as one JSON object
        return dump({k: v[-1] for k, v in given.direct.items()})
    return given.json or ""


def _out_column(p: Param) -> Column:
    return Column(p.name, p.type, p.type, True, None, 0)


# -- overload resolution ------------------------------------------------------------------

def find_function(cache: SchemaCache, schema: str, name: str, arg_names: list[str], content: str, post: bool,
                  single_object: bool = False) -> Function:
    """The overload the argument names pick, as PostgREST's findProc: the overloads whose
    parameters the names fit, else (POST) the one whose single unnamed parameter takes the
    raw body; PGRST203 when several fit, PGRST202 when none does."""
    overloads = callable_overloads(cache, schema, name)
    given = set(arg_names)
    matched: list[Function] = []
    fallback: list[Function] = []
    for fn in overloads:
        if _fits(fn, given, content, post, single_object):
            matched.append(fn)
        elif _takes_raw_body(fn, content, post):
            fallback.append(fn)
    candidates = matched or fallback
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise errors.ambiguous_function(
            [f"{fn.schema}.{fn.name}(" + ", ".join(f"{p.name} => {p.type}" for p in fn.params) + ")" for fn in candidates])
    raise _not_found(cache, schema, name, sorted(given), content, post, overloads)


def callable_overloads(cache: SchemaCache, schema: str, name: str) -> list[Function]:
    """The overloads /rpc can call, in PostgREST's order: fewest parameters first."""
    return sorted((fn for fn in cache.functions.get((schema, name), []) if fn.callable), key=_overload_order)


def _overload_order(fn: Function) -> tuple[Any, ...]:
    # PostgREST's Ord Routine: the parameter count, then the description, then the parameters
    return (len(fn.params), fn.description is not None, fn.description or "",
            [(p.name, p.type, not p.has_default, p.mode == "v") for p in fn.params], fn.return_type)


def _fits(fn: Function, given: set[str], content: str, post: bool, single_object: bool) -> bool:
    params = fn.params
    if single_object:
        return len(params) == 1 and params[0].type in _SINGLE_OBJECT_TYPES
    if not params:
        return not given and not (post and content in RAW_BODY_PARAM)
    required = {p.name for p in params if not p.has_default}
    optional = {p.name for p in params if p.has_default}
    return given - optional == required


def _takes_raw_body(fn: Function, content: str, post: bool) -> bool:
    """A POST whose body, as it is, is the argument of the function's one unnamed parameter."""
    if not post or len(fn.params) != 1 or fn.params[0].name:
        return False
    kind = fn.params[0].type
    if content in JSON_TYPES:
        return kind in ("json", "jsonb")
    return RAW_BODY_PARAM.get(content) == kind


def _not_found(cache: SchemaCache, schema: str, name: str, keys: list[str], content: str, post: bool,
               overloads: list[Function]) -> errors.ApiError:
    """PGRST202 in PostgREST's words (Error.hs NoRpc)."""
    func = f"{schema}.{name}"
    listed = ", ".join(keys)
    only_raw = post and content in RAW_BODY_PARAM  # a raw body has no argument names to list
    with_params = (" with parameter" + ("s " if len(keys) > 1 else " ") + listed) if keys else " without parameters"
    message = f"Could not find the function {func}" + ("" if only_raw else (f"({listed})" if keys else " without parameters"))
    if only_raw:
        searched = f" with a single unnamed {RAW_BODY_PARAM[content]} parameter"
    elif post and content in JSON_TYPES:
        searched = with_params + " or with a single unnamed json/jsonb parameter"
    else:
        searched = with_params
    details = f"Searched for the function {func}{searched}, but no matches were found in the schema cache."
    hint = None if only_raw else _hint(cache, schema, name, keys, overloads)
    return errors.function_not_found(message + " in the schema cache", details, hint)


def _hint(cache: SchemaCache, schema: str, name: str, keys: list[str], overloads: list[Function]) -> str | None:
    """PostgREST's noRpcHint: a function of a close name, or the overload of the closest
    parameter names when the name exists."""
    if not overloads:
        names = [n for (s, n), fns in cache.functions.items() if s == schema and any(f.callable for f in fns)]
        close = fuzzy.closest(name, names, 0.75)
        return f"Perhaps you meant to call the function {schema}.{close}" if close else None
    signatures = ["(" + ", ".join(sorted(p.name for p in fn.params)) + ")" for fn in overloads]
    close = fuzzy.closest("(" + ", ".join(keys) + ")", signatures)
    return f"Perhaps you meant to call the function {schema}.{name}{close}" if close else None
