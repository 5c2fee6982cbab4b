"""The SQL of a plan, composed with psycopg.sql (PostgREST's Query/QueryBuilder.hs): names are
Identifiers, every user value is a bound parameter, and the answer's JSON is built in
PostgreSQL (json_agg / row_to_json). Nothing else in /rest/v1 composes SQL; nothing here
checks a request (the plan stage did).

Every statement answers one row: total, page_total, body, and the response.headers and
response.status settings (see `wrap`); EXPLAIN answers the plan's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from psycopg import sql

from server.rest.api_request.types import ColumnItem, Field, Filter, Logic, MediaType, OrderTerm
from server.rest.plan import CallPlan, MutatePlan, Plan, ReadPlan
from server.rest.plan.call import CallArgs
from server.rest.plan.read import ReadNode
from server.rest.schema_cache import Function, Param, Table

SQL = sql.SQL
Id = sql.Identifier

_COMPARE = {"eq": "=", "neq": "<>", "gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "like": "LIKE",
            "ilike": "ILIKE", "match": "~", "imatch": "~*", "cs": "@>", "cd": "<@", "ov": "&&", "sl": "<<",
            "sr": ">>", "nxr": "&<", "nxl": "&>", "adj": "-|-", "isdistinct": "IS DISTINCT FROM"}
_FTS = {"fts": "to_tsquery", "plfts": "plainto_tsquery", "phfts": "phraseto_tsquery", "wfts": "websearch_to_tsquery"}
_IS = {"null": "NULL", "not_null": "NOT NULL", "true": "TRUE", "false": "FALSE", "unknown": "UNKNOWN"}
# SQL spellings of types whose keyword is not a pg_type name (so cannot be quoted as such).
_TYPE_KEYWORDS = {"int": "int4", "integer": "int4", "smallint": "int2", "bigint": "int8", "real": "float4",
                  "float": "float8", "double precision": "float8", "boolean": "bool", "decimal": "numeric",
                  "character varying": "varchar", "character": "bpchar", "char": "bpchar"}
_AGG = {"count": "count", "sum": "sum", "avg": "avg", "max": "max", "min": "min"}


class Params:
    """Named bound parameters, collected while composing; `body` names the one holding the
    request body's JSON (filled from each request when the statement is reused)."""

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}
        self.body: str | None = None

    def add(self, value: Any) -> sql.Composable:
        name = f"p{len(self.values)}"
        self.values[name] = value
        return sql.Placeholder(name)

    def add_body(self, text: str) -> sql.Composable:
        self.body = f"p{len(self.values)}"
        return self.add(text)


@dataclass(frozen=True, slots=True)
class Query:
    statement: sql.Composable
    params: Params
    estimate: Query | None = None  # EXPLAIN of the count query, run after the statement (count=planned|estimated)


def compose(plan: Plan) -> Query:
    params = Params()
    estimate = None
    if isinstance(plan, ReadPlan):
        statement = read_statement(plan, params)
        if plan.count in ("planned", "estimated") and plan.media.kind != "plan":
            estimate = count_estimate(plan)
    elif isinstance(plan, MutatePlan):
        statement = mutate_statement(plan, params)
    else:
        statement = call_statement(plan, params)
    if plan.media.kind == "plan":
        statement = explain(statement, plan.media)
    return Query(statement, params, estimate)


def read_statement(plan: ReadPlan, params: Params) -> sql.Composable:
    node = plan.tree
    source = table_source(node.table, node.alias)
    inner = root_query(node, source, params, plan.limit, plan.offset)
    total = None
    if plan.count in ("exact", "estimated"):
        # PostgREST's count query; an estimated one counts no further than max-rows + 1
        counted = root_query(node, source, params, None, None, for_count=True)
        if plan.count == "estimated" and plan.max_rows is not None:
            counted += SQL(" LIMIT {}").format(params.add(plan.max_rows + 1))
        total = count_expr(counted)
    return wrap(inner, _output_body(plan.media), total)


def count_estimate(plan: ReadPlan) -> Query:
    """The planner's estimate of the rows a read counts (PostgREST's preparePlanRows): EXPLAIN
    of the count query, whose top node's "Plan Rows" is the total."""
    params = Params()
    node = plan.tree
    counted = root_query(node, table_source(node.table, node.alias), params, None, None, for_count=True)
    return Query(SQL("EXPLAIN (FORMAT JSON) {}").format(counted), params)


def mutate_statement(plan: MutatePlan, params: Params) -> sql.Composable:
    node = plan.tree
    table = plan.table
    if plan.mutation in ("create", "upsert"):
        assert plan.body_text is not None
        change = insert_sql(table, node.alias, plan.columns, plan.body_text, params, plan.missing_default,
                            plan.on_conflict, plan.resolution, plan.counts_inserted)
    elif plan.mutation == "update" and plan.columns:
        assert plan.body_text is not None
        change = update_sql(table, node, plan.columns, plan.body_text, params)
    elif plan.mutation == "update":
        # no column to set: an UPDATE of zero rows, which PostgREST writes as this
        change = SQL("SELECT {a}.* FROM {t} AS {a} WHERE false").format(a=Id(node.alias), t=_qualified(table))
    else:
        change = delete_sql(table, node, params)
    changed = Id(node.alias)
    cte = SQL("{} AS ({})").format(changed, change)
    if plan.returning:
        # the changed rows, embedded like a read (filters already applied by the change)
        returned = ReadNode(node.table, node.alias, node.key, node.columns, node.children, order=node.order,
                            star=node.star)
        inner = root_query(returned, changed, params, None, None)
    elif plan.location:
        inner = SQL("SELECT {c}.* FROM {c}").format(c=changed)  # the key the Location header names
    else:
        inner = SQL("SELECT 1 FROM {}").format(changed)
    # PostgREST counts a write's rows for count=exact|estimated, never for planned
    counted = plan.count in ("exact", "estimated")
    total = SQL("(SELECT pg_catalog.count(*) FROM {})").format(changed) if counted else None
    body = _output_body(plan.media) if plan.returning else "array"
    return wrap(inner, body, total, [cte], inserted=plan.counts_inserted)


def call_statement(plan: CallPlan, params: Params) -> sql.Composable:
    """The call as the CTE `_pgrst_call` (PostgREST's pgrst_source), read like a table: its
    rows (or its scalar) filtered, embedded and paged, and counted without the page."""
    alias = Id(plan.fn.name)
    source = SQL("_pgrst_call AS {}").format(alias)
    # a void call is materialized: nothing reads its value, yet it must run
    cte = SQL("_pgrst_call AS {}({})").format(SQL("MATERIALIZED ") if plan.void else SQL(""),
                                              call_source(plan.fn, plan.args, plan.returns_rows, params))
    inner: sql.Composable
    if plan.tree is None or plan.void:
        value = SQL("NULL") if plan.void else SQL("{}.pgrst_scalar").format(alias)
        inner = SQL("SELECT {} AS pgrst_scalar FROM {}").format(value, source)
        if plan.limit is not None or plan.offset:
            inner += SQL(" LIMIT {} OFFSET {}").format(params.add(plan.limit), params.add(plan.offset))
        body = "scalar_set" if plan.fn.returns_set else "scalar"
        count_query: sql.Composable = SQL("SELECT 1 FROM _pgrst_call")
    else:
        inner = root_query(plan.tree, source, params, plan.limit, plan.offset)
        if plan.count:
            count_query = root_query(plan.tree, source, params, None, None, for_count=True)
        body = _output_body(plan.media)
    return wrap(inner, body, count_expr(count_query) if plan.count else None, [cte])


_EXPLAIN_OPTIONS = ("analyze", "verbose", "settings", "buffers", "wal")


def explain(statement: sql.Composable, media: MediaType) -> sql.Composable:
    """EXPLAIN of the statement, with the options the Accept header lists (known ones only)."""
    options = ["FORMAT JSON" if media.plan_format == "json" else "FORMAT TEXT"]
    options += [o.upper() for o in media.plan_options if o in _EXPLAIN_OPTIONS]
    return SQL("EXPLAIN (" + ", ".join(options) + ") {}").format(statement)


def _array_body(media: MediaType) -> str:
    return "stripped" if media.nulls_stripped else "array"


def _output_body(media: MediaType) -> str:
    """The body a relation's rows are built into: CSV and GeoJSON in SQL as PostgREST does,
    else the JSON array (a single object is cut from it by the response stage)."""
    kind = media.output.kind
    return kind if kind in ("csv", "geojson") else _array_body(media.output)


def _qualified(table: Table) -> sql.Composable:
    return SQL("{}.{}").format(Id(table.schema), Id(table.name))


def type_name(cast: str) -> sql.Composable:
    """A user-given cast type (already restricted to letters/digits/_/space/[] by the parser)."""
    is_array = cast.endswith("[]")
    base = cast[:-2] if is_array else cast
    base = " ".join(base.lower().split())
    name = Id(_TYPE_KEYWORDS.get(base, base))
    return SQL("{}[]").format(name) if is_array else name


def catalog_type(text: str) -> sql.Composable:
    """A type name from the catalog (format_type output), trusted like PostgREST does."""
    return catalog_sql(text)


def catalog_sql(text: str) -> sql.Composable:
    """SQL text read from the catalog (a type name, a column's DEFAULT expression): written by
    the schema's owner, never by a client."""
    return SQL(text)


def array_literal(values: list[str]) -> str:
    """A PostgreSQL array literal (`{"a","b,c"}`) bound as one parameter."""
    def quote(v: str) -> str:
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "{" + ",".join(quote(v) for v in values) + "}"


def field_expr(alias: str, fld: Field, params: Params) -> sql.Composable:
    expr: sql.Composable = SQL("{}.{}").format(Id(alias), Id(fld.name))
    for op in fld.json_path:
        key = SQL("{}::int").format(params.add(int(op.key))) if op.is_index else params.add(op.key)
        expr = SQL("{} " + op.arrow + " {}").format(expr, key)
    return expr


def filter_sql(alias: str, f: Filter, table: Table | None, params: Params) -> sql.Composable:
    col = field_expr(alias, f.field, params)
    op = f.op
    if op == "is":
        cond = SQL("{} IS " + _IS[f.value]).format(col)
    elif op == "in":
        cond = SQL("{} = ANY({})").format(col, params.add(array_literal(f.value)))
    elif op in _FTS:
        column = table.columns.get(f.field.name) if table else None
        lang = SQL("{}::regconfig, ").format(params.add(f.language)) if f.language else SQL("")
        is_vector = column and column.base_type == "tsvector" and not f.field.json_path
        vector = col if is_vector else SQL("to_tsvector({}{})").format(lang, col)
        cond = SQL("{} @@ " + _FTS[op] + "({}{})").format(vector, lang, params.add(f.value))
    else:
        sql_op = _COMPARE[op]
        if f.quantifier:
            values = [v.replace("*", "%") for v in f.value] if op in ("like", "ilike") else f.value
            cond = SQL("{} " + sql_op + " " + f.quantifier.upper() + "({})").format(col, params.add(array_literal(values)))
        else:
            value = f.value.replace("*", "%") if op in ("like", "ilike") else f.value
            cond = SQL("{} " + sql_op + " {}").format(col, params.add(value))
    return SQL("NOT ({})").format(cond) if f.negate else cond


def logic_sql(alias: str, tree: Logic, table: Table | None, params: Params,
              embeds: dict[str, str] | None = None) -> sql.Composable:
    """A logic tree; `embeds` (embed name -> SQL alias) lets `embed.is.null` and
    `embed.not.is.null` test an embedded resource, as PostgREST's null-embed filters do."""
    parts = [logic_sql(alias, c, table, params, embeds) if isinstance(c, Logic)
             else _embed_null_sql(c, embeds) or filter_sql(alias, c, table, params)
             for c in tree.children]
    joined = SQL(" AND " if tree.op == "and" else " OR ").join(parts) if parts else SQL("TRUE")
    expr = SQL("({})").format(joined)
    return SQL("NOT {}").format(expr) if tree.negate else expr


def _embed_null_sql(f: Filter, embeds: dict[str, str] | None) -> sql.Composable | None:
    if not embeds or f.field.name not in embeds or f.field.json_path or f.op != "is" or f.value not in ("null", "not_null"):
        return None
    is_null = (f.value == "null") != f.negate
    return SQL("{}.{} IS " + ("NULL" if is_null else "NOT NULL")).format(Id(embeds[f.field.name]), Id("body"))


def order_sql(node: ReadNode, terms: list[OrderTerm], params: Params) -> sql.Composable:
    items = []
    for t in terms:
        if t.relation:
            child = next(c for c in node.children if c.key == t.relation)
            if child.spread:
                expr = field_expr(child.alias, t.field, params)
            else:
                expr = SQL("({}.{}::jsonb -> {})").format(Id(child.alias), Id("body"), params.add(t.field.name))
        else:
            expr = field_expr(node.alias, t.field, params)
        suffix = ""
        if t.direction:
            suffix += " " + t.direction.upper()
        if t.nulls:
            suffix += " NULLS " + t.nulls.upper()
        items.append(SQL("{}" + suffix).format(expr))
    return SQL(", ").join(items)


def _column_item_sql(node: ReadNode, item: ColumnItem, params: Params, hoisting: bool) -> sql.Composable:
    """One select item. In a to-one spread (`hoisting`) an aggregate is left to the parent:
    the column is selected plain, under the name the parent aggregates."""
    if item.aggregate and hoisting:
        if item.field.name == "*":
            return SQL("1 AS {}").format(Id(item.alias or item.aggregate))
        plain = field_expr(node.alias, item.field, params)
        if item.cast:
            plain = SQL("CAST({} AS {})").format(plain, type_name(item.cast))
        return SQL("{} AS {}").format(plain, Id(item.alias or item.aggregate))
    if item.aggregate:
        expr: sql.Composable
        if item.field.name == "*":
            expr = SQL("count(*)")
        else:
            inner: sql.Composable = field_expr(node.alias, item.field, params)
            if item.cast:
                inner = SQL("CAST({} AS {})").format(inner, type_name(item.cast))
            expr = SQL(_AGG[item.aggregate] + "({})").format(inner)
        if item.aggregate_cast:
            expr = SQL("CAST({} AS {})").format(expr, type_name(item.aggregate_cast))
        return SQL("{} AS {}").format(expr, Id(item.alias or item.aggregate))
    if item.field.name == "*":
        return SQL("{}.*").format(Id(node.alias))
    expr = field_expr(node.alias, item.field, params)
    if item.cast:
        expr = SQL("CAST({} AS {})").format(expr, type_name(item.cast))
    return SQL("{} AS {}").format(expr, Id(item.alias or item.field.default_alias))


# -- spreads: `...rel(cols)` puts the embed's columns among its parent's -----------------------

@dataclass(frozen=True, slots=True)
class SpreadColumn:
    name: str  # the output key, also the column's name in the spread's subquery
    aggregate: str | None = None  # an aggregate the spread hoists to its parent (to-one only)
    aggregate_cast: str | None = None


def spread_columns(node: ReadNode) -> list[SpreadColumn]:
    """The columns a spread embed adds to its parent, in select order."""
    out: list[SpreadColumn] = []
    for item in node.columns:
        if item.aggregate and node.hoists:
            out.append(SpreadColumn(item.alias or item.aggregate, item.aggregate, item.aggregate_cast))
        elif item.aggregate:
            out.append(SpreadColumn(item.alias or item.aggregate))
        elif item.field.name == "*":
            out += [SpreadColumn(c.name) for c in sorted(node.table.columns.values(), key=lambda c: c.position)]
        else:
            out.append(SpreadColumn(item.alias or item.field.default_alias))
    for child in node.children:
        if child.spread:
            out += spread_columns(child) if node.hoists else [SpreadColumn(c.name) for c in spread_columns(child)]
        elif not child.empty:
            out.append(SpreadColumn(child.key))
    return out


def groups(node: ReadNode) -> bool:
    """Whether the node's query aggregates: its own aggregates, or those its to-one spreads hoist."""
    return not node.hoists and (node.has_aggregates or node.spreads_aggregates)


def select_list(node: ReadNode, params: Params) -> tuple[list[sql.Composable], list[int]]:
    """The select items of a node and the 1-based positions to GROUP BY when aggregating."""
    items: list[sql.Composable] = []
    group: list[int] = []
    hoisting = node.hoists
    # json has no equality: a grouping query carries its embeds as jsonb (as PostgREST always does)
    body_type = "::jsonb" if groups(node) else ""
    for item in node.columns:
        items.append(_column_item_sql(node, item, params, hoisting))
        if hoisting or not item.aggregate:
            group.append(len(items))
    for child in node.children:
        if child.empty:
            continue
        if child.spread:
            for col in spread_columns(child):
                ref = SQL("{}.{}").format(Id(child.alias), Id(col.name))
                if col.aggregate and not hoisting:
                    expr = SQL(_AGG[col.aggregate] + "({})").format(ref)
                    if col.aggregate_cast:
                        expr = SQL("CAST({} AS {})").format(expr, type_name(col.aggregate_cast))
                    items.append(SQL("{} AS {}").format(expr, Id(col.name)))
                    continue
                items.append(SQL("{} AS {}").format(ref + SQL(body_type if child.spread_to_many else ""), Id(col.name)))
                group.append(len(items))
        elif child.to_one:
            items.append(SQL("{}.{}" + body_type + " AS {}").format(Id(child.alias), Id("body"), Id(child.key)))
            group.append(len(items))
        else:
            items.append(SQL("COALESCE({}.{}, '[]')" + body_type + " AS {}").format(Id(child.alias), Id("body"), Id(child.key)))
            group.append(len(items))
    return items, group  # may be empty (`select=users()`): PostgreSQL selects zero columns


def _source(node: ReadNode, parent_alias: str) -> sql.Composable:
    """The FROM item of an embed: its relation, or for a computed relationship its function
    applied to the parent row (cast to the parent's type: the parent may be a CTE's row)."""
    rel = node.rel
    assert rel is not None
    if rel.function is not None:
        return SQL("{}.{}({}::{}.{}) AS {}").format(Id(rel.function[0]), Id(rel.function[1]), Id(parent_alias),
                                                  Id(rel.table[0]), Id(rel.table[1]), Id(node.alias))
    return SQL("{}.{} AS {}").format(Id(node.table.schema), Id(node.table.name), Id(node.alias))


def _join_condition(child: ReadNode, parent_alias: str) -> tuple[sql.Composable, sql.Composable | None]:
    """(extra FROM items, WHERE condition) joining an embed to its parent row."""
    rel = child.rel
    assert rel is not None
    if rel.function is not None:
        return SQL(""), None
    if rel.junction:
        j = rel.junction
        jalias = child.alias + "_j"
        conds = [SQL("{}.{} = {}.{}").format(Id(jalias), Id(jcol), Id(parent_alias), Id(scol)) for scol, jcol in j.cols_source]
        conds += [SQL("{}.{} = {}.{}").format(Id(jalias), Id(jcol), Id(child.alias), Id(tcol)) for jcol, tcol in j.cols_target]
        return SQL(", {}.{} AS {}").format(Id(j.table[0]), Id(j.table[1]), Id(jalias)), SQL(" AND ").join(conds)
    conds = [SQL("{}.{} = {}.{}").format(Id(child.alias), Id(fcol), Id(parent_alias), Id(col)) for col, fcol in rel.columns]
    return SQL(""), SQL(" AND ").join(conds)


def node_where(node: ReadNode, params: Params) -> list[sql.Composable]:
    embeds = {c.key: c.alias for c in node.children if not (c.spread and c.to_one)}
    conds = [filter_sql(node.alias, f, node.table, params) for f in node.filters]
    conds += [logic_sql(node.alias, t, node.table, params, embeds) for t in node.logic]
    for child in node.children:
        body = SQL("{}.{}").format(Id(child.alias), Id("body"))
        if child.spread and child.to_one:
            continue  # joined INNER or LEFT itself (see laterals)
        if child.join == "inner" or child.null_filter is False:
            conds.append(SQL("{} IS NOT NULL").format(body))
        elif child.null_filter is True:
            conds.append(SQL("{} IS NULL").format(body))
    return conds


def laterals(node: ReadNode, params: Params) -> list[sql.Composable]:
    out: list[sql.Composable] = []
    for child in node.children:
        sub = child_query(child, node.alias, params)
        if child.spread and child.to_one:
            kind = "INNER" if (child.join == "inner" or child.null_filter is False) else "LEFT"
            out.append(SQL(" " + kind + " JOIN LATERAL ({}) AS {} ON TRUE").format(sub, Id(child.alias)))
        elif child.spread:
            # one array per column, in the embed's order (json_agg keeps the subquery's order)
            arrays = [SQL("COALESCE(json_agg({a}.{c}), '[]') AS {c}").format(a=Id(child.alias), c=Id(c.name))
                      for c in spread_columns(child)]
            out.append(SQL(" LEFT JOIN LATERAL (SELECT json_agg({a}) AS {b}{arrays} FROM ({s}) AS {a}) AS {a} ON TRUE")
                       .format(a=Id(child.alias), b=Id("body"), s=sub,
                               arrays=sql.Composed([SQL(", ") + a for a in arrays])))
        elif child.to_one:
            out.append(SQL(" LEFT JOIN LATERAL (SELECT row_to_json({a}) AS {b} FROM ({s}) AS {a}) AS {a} ON TRUE")
                       .format(a=Id(child.alias), b=Id("body"), s=sub))
        else:
            out.append(SQL(" LEFT JOIN LATERAL (SELECT json_agg({a}) AS {b} FROM ({s}) AS {a}) AS {a} ON TRUE")
                       .format(a=Id(child.alias), b=Id("body"), s=sub))
    return out


def _tail(node: ReadNode, params: Params, group: list[int], limit: int | None, offset: int | None) -> sql.Composable:
    parts: list[sql.Composable] = []
    if groups(node) and group:
        parts.append(SQL(" GROUP BY ") + SQL(", ").join(SQL(str(int(g))) for g in group))
    if node.order:
        parts.append(SQL(" ORDER BY ") + order_sql(node, node.order, params))
    if limit is not None:
        parts.append(SQL(" LIMIT {}").format(params.add(limit)))
    if offset:
        parts.append(SQL(" OFFSET {}").format(params.add(offset)))
    return sql.Composed(parts)


def child_query(node: ReadNode, parent_alias: str, params: Params) -> sql.Composable:
    items, group = select_list(node, params)
    extra_from, join_cond = _join_condition(node, parent_alias)
    joins = laterals(node, params)
    where = [c for c in (join_cond, *node_where(node, params)) if c is not None]
    where_sql = SQL(" WHERE ") + SQL(" AND ").join(where) if where else SQL("")
    return SQL("SELECT {items} FROM {src}{extra}{joins}{where}{tail}").format(
        items=SQL(", ").join(items), src=_source(node, parent_alias), extra=extra_from, joins=sql.Composed(joins),
        where=where_sql, tail=_tail(node, params, group, node.limit, node.offset))


def root_query(node: ReadNode, source: sql.Composable, params: Params, limit: int | None, offset: int | None,
               for_count: bool = False) -> sql.Composable:
    """SELECT of the root rows. `source` is the FROM item (aliased as node.alias)."""
    joins = laterals(node, params)
    where = node_where(node, params)
    where_sql = SQL(" WHERE ") + SQL(" AND ").join(where) if where else SQL("")
    if for_count:
        return SQL("SELECT 1 FROM {src}{joins}{where}").format(src=source, joins=sql.Composed(joins), where=where_sql)
    items, group = select_list(node, params)
    return SQL("SELECT {items} FROM {src}{joins}{where}{tail}").format(
        items=SQL(", ").join(items), src=source, joins=sql.Composed(joins), where=where_sql,
        tail=_tail(node, params, group, limit, offset))


def table_source(table: Table, alias: str) -> sql.Composable:
    return SQL("{} AS {}").format(_qualified(table), Id(alias))


# PostgREST's asCsvF: the first row's keys, then each row in PostgreSQL's text form of a
# record without its parentheses (quoting, NULL as nothing, t/f, {1,2}, jsonb spacing)
_CSV_BODY = SQL("(SELECT coalesce(string_agg(_pgrst_k, ','), '') FROM json_object_keys(json_agg(_pgrst_t) -> 0) AS _pgrst_k)"
                " || E'\\n' || coalesce(string_agg(substring(_pgrst_t::text, 2, length(_pgrst_t::text) - 2), E'\\n'), '')")
# PostgREST's asGeoJsonF (PostGIS's ST_AsGeoJSON of a whole row: a Feature)
_GEOJSON_BODY = SQL("json_build_object('type', 'FeatureCollection', 'features',"
                    " coalesce(json_agg(ST_AsGeoJSON(_pgrst_t)::json), '[]'))::text")
# rows an upsert inserted (PostgREST's pgrst.inserted, counted by insert_sql)
_INSERTED = SQL(", nullif(current_setting('pgrst.inserted', true), '')::int AS inserted")


def wrap(inner: sql.Composable, body: str, total: sql.Composable | None, ctes: list[sql.Composable] | None = None,
         inserted: bool = False) -> sql.Composable:
    """The statement every request runs: body, row count, total, and the response GUCs (then,
    when `inserted`, the rows an upsert inserted).

    body: "array" | "stripped" | "scalar" | "scalar_set" | "csv" | "geojson".
    """
    if body == "csv":
        body_sql = _CSV_BODY
    elif body == "geojson":
        body_sql = _GEOJSON_BODY
    elif body == "stripped":
        body_sql = SQL("coalesce(json_strip_nulls(json_agg(_pgrst_t)), '[]')::text")
    elif body == "scalar":
        body_sql = SQL("coalesce((json_agg(_pgrst_t.pgrst_scalar) -> 0)::text, 'null')")
    elif body == "scalar_set":
        body_sql = SQL("coalesce(json_agg(_pgrst_t.pgrst_scalar), '[]')::text")
    else:
        body_sql = SQL("coalesce(json_agg(_pgrst_t), '[]')::text")
    with_sql = SQL("WITH ") + SQL(", ").join(ctes) + SQL(" ") if ctes else SQL("")
    return SQL("{with_}SELECT {total} AS total, pg_catalog.count(_pgrst_t) AS page_total, {body} AS body,"
               " nullif(current_setting('response.headers', true), '') AS headers,"
               " nullif(current_setting('response.status', true), '') AS status{inserted}"
               " FROM ({inner}) AS _pgrst_t").format(
        with_=with_sql, total=total if total is not None else SQL("NULL::bigint"), body=body_sql, inner=inner,
        inserted=_INSERTED if inserted else SQL(""))


def count_expr(count_query: sql.Composable) -> sql.Composable:
    return SQL("(SELECT pg_catalog.count(*) FROM ({}) AS _pgrst_c)").format(count_query)


# -- writes ---------------------------------------------------------------------------------

def insert_sql(table: Table, alias: str, columns: list[str], body: str, params: Params, missing_default: bool,
               on_conflict: list[str], resolution: str | None, count_inserted: bool) -> sql.Composable:
    """INSERT of the body's rows (PostgREST's mutatePlanToQuery Insert). An upsert on
    `on_conflict` merges or ignores duplicates; with `count_inserted` (merge-duplicates, PUT)
    every row proposed adds one to pgrst.inserted and every row merged takes one off, so that
    the answer tells an upsert that inserted (201) from one that only updated (200)."""
    qtable = _qualified(table)
    rows = SQL("json_array_elements(CASE WHEN json_typeof(_pgrst_b.j) = 'array' THEN _pgrst_b.j ELSE json_build_array(_pgrst_b.j) END)")
    counted = SQL(" WHERE " + _COUNT_INSERTED.format(sign="+", never="0")) if count_inserted else SQL("")
    if not columns and body.strip() in ("{}", "[{}]") and not count_inserted:
        stmt = SQL("INSERT INTO {t} AS {a} DEFAULT VALUES").format(t=qtable, a=Id(alias))
    elif not columns:
        stmt = SQL("INSERT INTO {t} AS {a} SELECT FROM (SELECT {body}::json AS j) AS _pgrst_b, {rows} AS _pgrst_e(j){w}").format(
            t=qtable, a=Id(alias), body=params.add_body(body), rows=rows, w=counted)
    else:
        values = []
        for c in columns:
            value: sql.Composable = SQL("_pgrst_r.{}").format(Id(c))
            default = column_default(table, c, params) if missing_default else None
            if default is not None:
                value = SQL("CASE WHEN _pgrst_e.j::jsonb ? {} THEN {} ELSE {} END").format(params.add(c), value, default)
            values.append(value)
        stmt = SQL("INSERT INTO {t} AS {a} ({cols}) SELECT {vals} FROM (SELECT {body}::json AS j) AS _pgrst_b, {rows} AS _pgrst_e(j),"
                   " LATERAL json_populate_record(NULL::{t}, _pgrst_e.j) AS _pgrst_r{w}").format(
            t=qtable, a=Id(alias), cols=SQL(", ").join(Id(c) for c in columns), vals=SQL(", ").join(values),
            body=params.add_body(body), rows=rows, w=counted)
    if resolution and on_conflict:
        conflict = SQL(" ON CONFLICT ({})").format(SQL(", ").join(Id(c) for c in on_conflict))
        if resolution == "ignore-duplicates" or not columns:
            stmt += conflict + SQL(" DO NOTHING")
        else:
            stmt += conflict + SQL(" DO UPDATE SET ") + SQL(", ").join(
                SQL("{} = EXCLUDED.{}").format(Id(c), Id(c)) for c in columns)
            if count_inserted:
                stmt += SQL(" WHERE " + _COUNT_INSERTED.format(sign="-", never="-1"))
    return stmt + SQL(" RETURNING {}.*").format(Id(alias))


# PostgREST's addConfigPgrstInserted: a condition that always holds, counting as it goes
_COUNT_INSERTED = ("set_config('pgrst.inserted', (coalesce(nullif(current_setting('pgrst.inserted', true), '')::int, 0)"
                   " {sign} 1)::text, true) <> '{never}'")


def column_default(table: Table, name: str, params: Params) -> sql.Composable | None:
    """What Prefer: missing=default puts in a column the row leaves out, as PostgREST's
    schema cache has it: the column's DEFAULT, the next value of an identity's sequence;
    nothing for a generated column (which then refuses the NULL, as in PostgREST)."""
    column = table.columns[name]
    if column.generated:
        return None
    if column.identity:
        qualified = '"{}"."{}"'.format(table.schema.replace('"', '""'), table.name.replace('"', '""'))
        return SQL("nextval(pg_get_serial_sequence({}, {}))").format(params.add(qualified), params.add(name))
    return catalog_sql(column.default) if column.default is not None else None


def update_sql(table: Table, node: ReadNode, columns: list[str], body: str, params: Params) -> sql.Composable:
    qtable = _qualified(table)
    sets = SQL(", ").join(SQL("{} = _pgrst_r.{}").format(Id(c), Id(c)) for c in columns)
    if _is_limited(node):
        # PostgREST's limited update: the rows picked by order, limit and offset, by the order's columns
        picked, match = _limited_rows(table, node, params)
        return SQL("UPDATE {t} AS {a} SET {sets} FROM (SELECT * FROM json_populate_record(NULL::{t}, {body}::json)) AS _pgrst_r,"
                   " {picked} WHERE {match} RETURNING {a}.*").format(
            t=qtable, a=Id(node.alias), sets=sets, body=params.add_body(body), picked=picked, match=match)
    where = node_where(node, params)
    where_sql = SQL(" WHERE ") + SQL(" AND ").join(where) if where else SQL("")
    return SQL("UPDATE {t} AS {a} SET {sets} FROM (SELECT * FROM json_populate_record(NULL::{t}, {body}::json)) AS _pgrst_r"
               "{where} RETURNING {a}.*").format(t=qtable, a=Id(node.alias), sets=sets, body=params.add_body(body),
                                                  where=where_sql)


def delete_sql(table: Table, node: ReadNode, params: Params) -> sql.Composable:
    if _is_limited(node):
        picked, match = _limited_rows(table, node, params)
        return SQL("DELETE FROM {t} AS {a} USING {picked} WHERE {match} RETURNING {a}.*").format(
            t=_qualified(table), a=Id(node.alias), picked=picked, match=match)
    where = node_where(node, params)
    where_sql = SQL(" WHERE ") + SQL(" AND ").join(where) if where else SQL("")
    return SQL("DELETE FROM {} AS {}{} RETURNING {}.*").format(_qualified(table), Id(node.alias), where_sql,
                                                                Id(node.alias))


def _is_limited(node: ReadNode) -> bool:
    return node.limit is not None or bool(node.offset)


def _limited_rows(table: Table, node: ReadNode, params: Params) -> tuple[sql.Composable, sql.Composable]:
    """(FROM item of the rows a limited update or delete changes, the condition matching them).

    As PostgREST's mutRangeF: the filtered rows in the request's order, limited and offset,
    identified by the columns of that order (which should be unique; the plan demands one)."""
    terms = [t for t in node.order if not t.relation]
    keys = list(dict.fromkeys(t.field.name for t in terms))
    where = node_where(node, params)
    where_sql = SQL(" WHERE ") + SQL(" AND ").join(where) if where else SQL("")
    limit = SQL(" LIMIT {}").format(params.add(node.limit)) if node.limit is not None else SQL("")
    offset = SQL(" OFFSET {}").format(params.add(node.offset)) if node.offset else SQL("")
    picked = SQL("(SELECT {cols} FROM {t} AS {a}{where} ORDER BY {order}{limit}{offset}) AS _pgrst_a").format(
        cols=SQL(", ").join(SQL("{}.{}").format(Id(node.alias), Id(k)) for k in keys), t=_qualified(table),
        a=Id(node.alias), where=where_sql, order=order_sql(node, terms, params), limit=limit, offset=offset)
    match = SQL(" AND ").join(SQL("{a}.{k} = _pgrst_a.{k}").format(a=Id(node.alias), k=Id(k)) for k in keys)
    return picked, match


# -- rpc ------------------------------------------------------------------------------------

# Parameter types that would cut a longer value (PostgREST's ppTypeMaxLength).
_MAX_LENGTH_TYPES = {"character": "character varying", "character[]": "character varying[]",
                     "bit": "bit varying", "bit[]": "bit varying[]"}


def call_source(fn: Function, args: CallArgs, returns_rows: bool, params: Params) -> sql.Composable:
    """The SELECT calling the function (PostgREST's callPlanToQuery): its rows, or its value
    as `pgrst_scalar`. Arguments are typed by the function's signature: bound one by one
    (query string, form), read from the JSON body's first object, or the one positional
    value."""
    qfn = SQL("{}.{}").format(Id(fn.schema), Id(fn.name))
    body_from: sql.Composable = SQL("")
    if args.kind == "single":
        value = params.add_body(args.body or "") if args.from_body else params.add(args.body)
        call_args: sql.Composable = SQL("{}::{}").format(value, catalog_type(args.params[0].type))
    elif args.kind == "direct":
        call_args = SQL(", ").join(
            SQL("VARIADIC {} := {}::{}" if p.mode == "v" else "{} := {}::{}").format(
                Id(p.name), params.add(array_literal(v) if isinstance(v, list) else v), _arg_type(p))
            for p, v in zip(args.params, args.values, strict=True))
    elif args.kind == "json":
        # an object is one row; of an array, only the first element is the arguments (decided
        # in SQL: the cached statement serves every body of the same keys)
        decl = SQL(", ").join(SQL("{} {}").format(Id(p.name), _arg_type(p)) for p in args.params)
        body_from = SQL(" FROM (SELECT _pgrst_a.* FROM (SELECT {}::json AS j) AS _pgrst_j, json_to_recordset(CASE WHEN"
                        " json_typeof(_pgrst_j.j) = 'array' THEN _pgrst_j.j ELSE json_build_array(_pgrst_j.j) END) AS _pgrst_a({})"
                        " LIMIT 1) AS _pgrst_body").format(params.add_body(args.body or ""), decl)
        call_args = SQL(", ").join(
            SQL("VARIADIC {} := _pgrst_body.{}" if p.mode == "v" else "{} := _pgrst_body.{}").format(Id(p.name), Id(p.name))
            for p in args.params)
    else:
        call_args = SQL("")
    call = SQL("{}({})").format(qfn, call_args)
    if not returns_rows:
        return SQL("SELECT {} AS pgrst_scalar{}").format(call, body_from)
    if args.kind == "json":
        return SQL("SELECT _pgrst_fn.*{}, LATERAL {} AS _pgrst_fn").format(body_from, call)
    return SQL("SELECT _pgrst_fn.* FROM {} AS _pgrst_fn").format(call)


def _arg_type(param: Param) -> sql.Composable:
    return catalog_type(_MAX_LENGTH_TYPES.get(param.type, param.type))
