"""Call plans: POST or GET on /rpc/<fn> (PostgREST's Plan.CallPlan): which overload the
arguments name, or a function taking the whole body as its one unnamed json argument, and
how the result is read (a scalar, a set, or rows embedded and filtered like a table's)."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Any

from server.rest import errors
from server.rest.body import dump
from server.rest.executor import Tx
from server.rest.plan.config import PlanConfig
from server.rest.plan.read import ReadNode, read_tree
from server.rest.request import READ_METHODS, ApiRequest, MediaType
from server.rest.schema_cache import Column, Function, Param, SchemaCache, Table


@dataclass(frozen=True, slots=True)
class CallPlan:
    fn: Function
    arg_names: list[str]  # named arguments, bound together as one JSON object
    args_text: str | None
    single_json: str | None  # the body as the function's one unnamed json argument
    read: bool  # GET/HEAD: a read-only transaction
    tree: ReadNode | None  # rows of a composite or table result; None for a scalar
    limit: int | None
    offset: int
    count: bool
    media: MediaType
    applied: tuple[str, ...]
    tx: Tx
    cacheable: bool

    @property
    def void(self) -> bool:
        return self.fn.return_type == "void"


def plan_call(request: ApiRequest, cache: SchemaCache, config: PlanConfig) -> CallPlan:
    prefer = request.prefer
    query = request.query
    read = request.method in READ_METHODS
    schema, name = request.schema, request.target
    body_text = request.body.decode("utf-8", "replace") or "{}"
    single_json: str | None = None
    args: dict[str, Any]
    if read:
        args = {k: (v[0] if len(v) == 1 else v) for k, v in query.rpc_args.items()}
    else:
        payload = {} if request.payload is None else request.payload
        if (isinstance(payload, list) and query.columns is None) or not isinstance(payload, dict):
            args, single_json = {}, body_text
        else:
            args = payload
            if prefer.params == "single-object":
                single_json = body_text
    if single_json is not None and prefer.params != "single-object":
        fn = find_function(cache, schema, name, [], single_json=True)
    else:
        fn, body_argument = _overload(cache, schema, name, list(args) if single_json is None else [], read)
        only = fn.params[0] if len(fn.params) == 1 else None
        unnamed_json = only is not None and only.name == "" and only.type in ("json", "jsonb")
        if body_argument or (single_json is None and not read and unnamed_json):
            single_json = body_text  # the one unnamed argument takes the whole body
    if read and fn.volatility == "v":
        raise errors.rpc_method(request.method)
    arg_names = list(args) if single_json is None else []
    applied: list[str] = []
    rollback, tx_applied = config.rollback(prefer)
    if tx_applied:
        applied.append(tx_applied)
    tree = None
    if not (fn.returns_table is None and not fn.returns_composite):
        table = cache.tables.get(fn.returns_table) if fn.returns_table else None
        if table is None:
            table = Table(fn.schema, fn.name, "f", {c.name: _out_column(c) for c in fn.out_columns})
        tree = read_tree(cache, table, fn.name, query.select, query, config.aggregates_enabled)
    count = bool(prefer.count and fn.returns_set)
    if count:
        applied.append(f"count={prefer.count}")
    explain = request.media.kind == "plan"
    tx = Tx(read_only=read, rollback=rollback or explain,
            max_affected=prefer.max_affected if not read and prefer.handling == "strict" else None)
    return CallPlan(fn, arg_names, dump(args) if arg_names else None,
                    single_json if single_json is not None and fn.params else None, read, tree,
                    config.row_limit(query.limit.get(())), query.offset.get((), 0), count, request.media,
                    tuple(applied), tx, cacheable=single_json is None and request.body_shape is not None)


def _overload(cache: SchemaCache, schema: str, name: str, arg_names: list[str], read: bool) -> tuple[Function, bool]:
    """The overload the argument names pick; for a POST, else the function taking the body as
    its one unnamed argument (then True: PostgREST tries both before answering PGRST202)."""
    try:
        return find_function(cache, schema, name, arg_names, single_json=not read), False
    except errors.ApiError as first_error:
        if read:
            raise
        try:
            fn = find_function(cache, schema, name, [], single_json=True)
        except errors.ApiError:
            raise first_error from None
        if not (len(fn.params) == 1 and fn.params[0].name == ""):
            raise first_error from None
        return fn, True


def _out_column(p: Param) -> Column:
    return Column(p.name, p.type, p.type, True, None, 0)


def find_function(cache: SchemaCache, schema: str, name: str, arg_names: list[str], single_json: bool) -> Function:
    """Overload resolution by argument names, as PostgREST; PGRST202/203 otherwise."""
    overloads = cache.functions.get((schema, name), [])
    given = set(arg_names)
    matches = []
    for fn in overloads:
        names = {p.name for p in fn.params}
        required = {p.name for p in fn.params if not p.has_default and p.mode != "v"}
        if given <= names and required <= given:
            matches.append(fn)
    if not matches and single_json:
        matches = [fn for fn in overloads if len(fn.params) == 1 and fn.params[0].name == ""
                   and fn.params[0].type in ("json", "jsonb")]
    if len(matches) > 1:
        # prefer the overload with exactly the given arguments
        exact = [fn for fn in matches if {p.name for p in fn.params} == given]
        if len(exact) == 1:
            return exact[0]
        raise errors.ambiguous_function(
            [f"{fn.schema}.{fn.name}(" + ", ".join(f"{p.name} => {p.type}" for p in fn.params) + ")" for fn in matches])
    if not matches:
        keys = sorted(arg_names)
        prms = ", ".join(keys)
        with_params = (" with parameter" + ("s " if len(keys) > 1 else " ") + prms) if keys else " without parameters"
        message = f"Could not find the function {schema}.{name}" + (f"({prms})" if keys else " without parameters") + " in the schema cache"
        or_json = " or with a single unnamed json/jsonb parameter" if single_json else ""
        details = f"Searched for the function {schema}.{name}{with_params}{or_json}, but no matches were found in the schema cache."
        raise errors.function_not_found(message, details, _rpc_hint(cache, schema, name, keys, overloads))
    return matches[0]


def _rpc_hint(cache: SchemaCache, schema: str, name: str, keys: list[str], overloads: list[Function]) -> str | None:
    if not overloads:
        names = [n for (s, n) in cache.functions if s == schema]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        return f"Perhaps you meant to call the function {schema}.{close[0]}" if close else None
    signatures = ["(" + ", ".join(sorted(p.name for p in fn.params)) + ")" for fn in overloads]
    wanted = "(" + ", ".join(keys) + ")"
    close = difflib.get_close_matches(wanted, signatures, n=1, cutoff=0.33) or signatures[:1]
    return f"Perhaps you meant to call the function {schema}.{name}{close[0]}" if close else None
