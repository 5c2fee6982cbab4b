"""Write plans: POST (insert, upsert), PUT (single upsert), PATCH (update), DELETE
(PostgREST's Plan.MutatePlan). The body is checked here against the target's columns; it
travels to PostgreSQL as one JSON parameter, expanded there (json_populate_record)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from server.rest import errors
from server.rest.api_request.types import ApiRequest, ColumnItem, Field, MediaType, Prefer, QueryParams, SelectItem
from server.rest.body import dump
from server.rest.plan.config import PlanConfig
from server.rest.plan.read import ReadNode, find_table, read_tree
from server.rest.plan.tx import Tx
from server.rest.schema_cache import SchemaCache, Table

# Bodies sent as JSON are bound as sent; CSV and form bodies are bound re-encoded as JSON.
_JSON_BODIES = ("application/json", "application/vnd.pgrst")


@dataclass(frozen=True, slots=True)
class MutatePlan:
    mutation: str  # create | upsert (PUT) | update | delete
    table: Table
    tree: ReadNode  # the rows' filters, and what of them is returned (select, embeds)
    columns: list[str]  # the columns written
    body_text: str | None  # the JSON bound as the body
    body_mode: str | None  # "raw": the request body as sent; "dump": the parsed body re-encoded
    missing_default: bool  # Prefer: missing=default
    on_conflict: list[str]  # the conflict target of an upsert (none: a plain insert)
    resolution: str | None  # merge-duplicates | ignore-duplicates: an upsert
    returning: bool  # Prefer: return=representation
    location: bool  # Prefer: return=headers-only on a table with a primary key
    count: str | None
    media: MediaType
    applied: tuple[str, ...]
    tx: Tx
    cacheable: bool  # planned the same for every body of the same shape

    @property
    def counts_inserted(self) -> bool:
        """Whether the answer depends on the rows inserted: 201 or 200 (PostgREST counts them
        for merge-duplicates and PUT)."""
        return self.mutation == "upsert" or (self.mutation == "create" and self.resolution == "merge-duplicates")


def plan_mutation(request: ApiRequest, cache: SchemaCache, config: PlanConfig) -> MutatePlan:
    prefer = request.prefer
    query = request.query
    table = find_table(cache, request.schema, request.target)
    rollback, tx_applied = config.rollback(prefer)
    returning = prefer.return_ == "representation"
    select: list[SelectItem] = query.select if returning else [ColumnItem(Field("*"))]
    tree = read_tree(cache, table, table.name, select, query, config.aggregates_enabled)
    mutation = request.action
    if mutation in ("update", "delete"):
        _check_limited(query)
    columns: list[str] = []
    body_text = body_mode = None
    resolution = None
    on_conflict: list[str] = []
    cacheable = request.body_shape is not None
    if mutation in ("create", "upsert"):
        rows = _rows(request.payload)
        columns = query.columns if query.columns is not None else _same_keys(rows)
        # without a key to conflict on, PostgREST inserts and leaves the resolution unapplied
        resolution, on_conflict = prefer.resolution, query.on_conflict or table.pk
        if mutation == "upsert":
            _check_put(table, tree, query, rows)
            resolution, on_conflict = "merge-duplicates", table.pk
            cacheable = False  # the body is checked against the URL
        _check_columns(table, columns)
        raw = request.content_type.startswith(_JSON_BODIES) and request.body.strip()
        body_mode = "raw" if raw else "dump"
        body_text = request.body.decode("utf-8") if raw else dump(request.payload)
        if not columns:
            cacheable = False  # planned from the body's text ({} is DEFAULT VALUES)
    elif mutation == "update":
        payload = {} if request.payload is None else request.payload
        if not isinstance(payload, dict):
            raise errors.invalid_body("Empty or invalid json")
        columns = query.columns if query.columns is not None else list(payload)
        _check_columns(table, columns)
        body_mode, body_text = "dump", dump(payload)
    applied = _applied(mutation, prefer, tx_applied, resolution if on_conflict and mutation == "create" else None)
    explain = request.media.kind == "plan"
    tx = Tx(read_only=False, rollback=rollback or explain,
            max_affected=prefer.max_affected if prefer.handling == "strict" else None,
            singular=returning and request.media.kind == "object")
    location = mutation == "create" and prefer.return_ == "headers-only" and bool(table.pk)
    return MutatePlan(mutation, table, tree, columns, body_text, body_mode, prefer.missing == "default", on_conflict,
                      resolution, returning, location, prefer.count, request.media, tuple(applied), tx, cacheable)


def _applied(mutation: str, prefer: Prefer, tx: str | None, resolution: str | None) -> tuple[str, ...]:
    """Preference-Applied of a write, in PostgREST's order (prefAppliedHeader): a create
    names its resolution (when it had a key to apply to) and missing, an update its missing;
    max-affected is named for updates and deletes under handling=strict."""
    applied = [f"resolution={resolution}" if resolution else None,
               f"missing={prefer.missing}" if prefer.missing and mutation in ("create", "update") else None,
               f"return={prefer.return_}" if prefer.return_ else None,
               f"count={prefer.count}" if prefer.count else None,
               tx,
               f"handling={prefer.handling}" if prefer.handling else None,
               f"max-affected={prefer.max_affected}" if (prefer.max_affected is not None and prefer.handling == "strict"
                                                         and mutation in ("update", "delete")) else None]
    return tuple(a for a in applied if a)


def _check_limited(query: QueryParams) -> None:
    """A limited update or delete (PostgREST 12) needs an explicit order, on unique column(s):
    the rows it changes are the ones a read in that order would page to."""
    if not (query.limit or query.offset):
        return
    root_ranged = () in query.limit or () in query.offset
    root_order = [t for t in query.order.get((), []) if not t.relation]
    if not query.order or (root_ranged and not root_order):
        raise errors.limit_no_order()


def _rows(payload: Any) -> list[dict[str, Any]]:
    if not isinstance(payload, (dict, list)):
        raise errors.invalid_body("Empty or invalid json")
    rows = payload if isinstance(payload, list) else [payload]
    if any(not isinstance(r, dict) for r in rows):
        raise errors.invalid_body("All object keys must match")
    return rows


def _same_keys(rows: list[dict[str, Any]]) -> list[str]:
    """The columns of a body without ?columns=: every row must have the same keys."""
    columns = list(rows[0]) if rows else []
    keyset = set(columns)
    if any(set(r) != keyset for r in rows[1:]):
        raise errors.invalid_body("All object keys must match")
    return columns


def _check_columns(table: Table, columns: list[str]) -> None:
    for column in columns:
        if column not in table.columns:
            raise errors.column_not_found(table.name, column)


def _check_put(table: Table, tree: ReadNode, query: QueryParams, rows: list[dict[str, Any]]) -> None:
    """PUT addresses one row by its whole primary key, and the body is that row."""
    if query.limit or query.offset:
        raise errors.put_with_limit()
    eqs = {f.field.name: f.value for f in tree.filters if f.op == "eq" and not f.negate and not f.field.json_path}
    if not table.pk or set(eqs) != set(table.pk) or len(tree.filters) != len(table.pk) or tree.logic:
        raise errors.put_filters()
    if len(rows) != 1 or any(str(rows[0].get(k)) != str(v) for k, v in eqs.items()):
        raise errors.put_payload_mismatch()
