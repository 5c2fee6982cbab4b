"""Resolve an ApiRequest against the schema cache: which relation, which relationships for
each embed, which function for an RPC. Raises PGRST2xx errors as PostgREST does."""

from __future__ import annotations

from dataclasses import dataclass, field

from server.rest import errors
from server.rest.request import ColumnItem, EmbedItem, Field, Filter, Logic, OrderTerm, Path, QueryParams
from server.rest.schema_cache import Function, Relationship, SchemaCache, Table


@dataclass
class ReadNode:
    """One relation of a read tree: the root, or an embed joined to its parent."""

    table: Table
    alias: str  # SQL alias of the relation in the query
    key: str  # output key in the parent's JSON (embed alias or name)
    columns: list[ColumnItem] = field(default_factory=list)
    children: list[ReadNode] = field(default_factory=list)
    filters: list[Filter] = field(default_factory=list)
    logic: list[Logic] = field(default_factory=list)
    order: list[OrderTerm] = field(default_factory=list)
    limit: int | None = None
    offset: int | None = None
    rel: Relationship | None = None
    join: str = "left"  # left | inner
    spread: bool = False
    null_filter: bool | None = None  # embed=is.null (True) / not.is.null (False) on the parent
    star: bool = False

    @property
    def to_one(self) -> bool:
        return self.rel is not None and self.rel.cardinality in ("m2o", "o2o")

    @property
    def has_aggregates(self) -> bool:
        return any(c.aggregate for c in self.columns)


class Aliases:
    """Unique SQL aliases for relations (`courses_1`, `courses_2`...)."""

    def __init__(self) -> None:
        self.n = 0

    def next(self, name: str) -> str:
        self.n += 1
        return f"{name[:40]}_{self.n}"


def find_table(cache: SchemaCache, schema: str, name: str) -> Table:
    table = cache.tables.get((schema, name))
    if table is None:
        err = errors.table_not_found(schema, name)
        err.hint = _close_table_hint(cache, schema, name)
        raise err
    return table


def _close_table_hint(cache: SchemaCache, schema: str, name: str) -> str | None:
    import difflib

    names = [n for (s, n) in cache.tables if s == schema]
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
    return f"Perhaps you meant the table '{schema}.{close[0]}'" if close else None


def find_relationship(cache: SchemaCache, parent: Table, embed: EmbedItem) -> Relationship:
    """PostgREST's findRel: target by table name, constraint name or FK column, narrowed by the hint."""
    rels = cache.relationships.get(parent.qi, [])
    name, hint = embed.name, embed.hint

    def matches_hint(r: Relationship) -> bool:
        if hint is None:
            return True
        if r.junction:
            return hint in (r.junction.table[1], r.junction.constraint1, r.junction.constraint2)
        cols_here = [a for a, _ in r.columns]
        cols_there = [b for _, b in r.columns]
        return (hint == r.constraint or (len(cols_here) == 1 and hint == cols_here[0])
                or (len(cols_there) == 1 and hint == cols_there[0]) or hint == r.foreign_table[1])

    by_table = [r for r in rels if r.foreign_table[1] == name and r.foreign_table[0] == parent.schema and matches_hint(r)]
    candidates = by_table
    if not candidates and hint is None:
        candidates = [r for r in rels if not r.junction and r.cardinality in ("m2o", "o2o") and
                      (r.constraint == name or (len(r.columns) == 1 and r.columns[0][0] == name))]
        if not candidates:
            candidates = [r for r in rels if not r.junction and r.constraint == name]
    if len(candidates) > 1:
        # a self relationship without hint: PostgREST prefers none, it is ambiguous too
        direct = [r for r in candidates if r.junction is None]
        if hint is not None and len(direct) == 1 and len(candidates) > len(direct):
            return direct[0]
        # a column hint names the FK column on this side first (self references: many-to-one)
        by_own_col = [r for r in direct if [a for a, _ in r.columns] == [hint]]
        if hint is not None and len(by_own_col) == 1:
            return by_own_col[0]
        raise errors.ApiError(
            300, "PGRST201",
            f"Could not embed because more than one relationship was found for '{parent.name}' and '{name}'",
            [r.describe() for r in candidates],
            f"Try changing '{name}' to one of the following: " + ", ".join(f"'{r.foreign_table[1]}!{r.hint_name()}'" for r in candidates)
            + ". Find the desired relationship in the 'details' key.")
    if not candidates:
        details = (f"Searched for a foreign key relationship between '{parent.name}' and '{name}'"
                   + (f" using the hint '{hint}'" if hint else "") + f" in the schema '{parent.schema}', but no matches were found.")
        raise errors.ApiError(400, "PGRST200", f"Could not find a relationship between '{parent.name}' and '{name}' in the schema cache",
                              details, None)
    return candidates[0]


def build_read_tree(cache: SchemaCache, root: Table, qp: QueryParams, aliases: Aliases, aggregates_enabled: bool,
                    select: list | None = None) -> ReadNode:
    node = ReadNode(root, root.name, root.name)
    _fill(cache, node, select if select is not None else qp.select, aliases, aggregates_enabled)
    _attach(node, qp)
    return node


def _fill(cache: SchemaCache, node: ReadNode, items: list, aliases: Aliases, aggregates_enabled: bool) -> None:
    for item in items:
        if isinstance(item, ColumnItem):
            if item.aggregate and not aggregates_enabled:
                raise errors.aggregates_not_allowed()
            if item.field.name == "*" and not item.aggregate:
                node.star = True
            node.columns.append(item)
            continue
        rel = find_relationship(cache, node.table, item)
        target = cache.tables[rel.foreign_table]
        child = ReadNode(target, aliases.next(target.name), item.alias or item.name, rel=rel,
                         join=item.join or "left", spread=item.spread)
        _fill(cache, child, item.items or [ColumnItem(Field("*"))], aliases, aggregates_enabled)
        node.children.append(child)


def _find_node(node: ReadNode, path: Path) -> ReadNode:
    cur = node
    for part in path:
        nxt = next((c for c in cur.children if c.key == part), None)
        if nxt is None:
            nxt = next((c for c in cur.children if c.table.name == part), None)
        if nxt is None:
            raise errors.not_embedded(part)
        cur = nxt
    return cur


def _attach(root: ReadNode, qp: QueryParams) -> None:
    for path, filters in qp.filters.items():
        node = _find_node(root, path)
        for f in filters:
            embed = next((c for c in node.children if c.key == f.field.name and not f.field.json_path), None)
            if embed is not None and not any(col.field.name == f.field.name for col in node.columns if not col.field.json_path):
                if f.op != "is" or f.value not in ("null", "not_null"):
                    raise errors.unacceptable_filter(f.field.name)
                is_null = (f.value == "null") != f.negate
                embed.null_filter = is_null
                continue
            node.filters.append(f)
    for path, logic in qp.logic.items():
        _find_node(root, path).logic.extend(logic)
    for path, order in qp.order.items():
        node = _find_node(root, path)
        for term in order:
            if term.relation:
                target = next((c for c in node.children if c.key == term.relation), None)
                if target is None:
                    raise errors.not_embedded(term.relation)
                if not target.to_one:
                    raise errors.related_order_not_to_one(node.table.name, term.relation)
        node.order.extend(order)
    for path, limit in qp.limit.items():
        _find_node(root, path).limit = limit
    for path, offset in qp.offset.items():
        _find_node(root, path).offset = offset


# -- RPC ------------------------------------------------------------------------------------

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
        raise errors.ApiError(
            300, "PGRST203", "Could not choose the best candidate function between: "
            + ", ".join(f"{fn.schema}.{fn.name}(" + ", ".join(f"{p.name} => {p.type}" for p in fn.params) + ")" for fn in matches),
            None, "Try renaming the parameters or the function itself in the database so function overloading can be resolved")
    if not matches:
        keys = sorted(arg_names)
        prms = ", ".join(keys)
        with_params = (" with parameter" + ("s " if len(keys) > 1 else " ") + prms) if keys else " without parameters"
        message = f"Could not find the function {schema}.{name}" + (f"({prms})" if keys else " without parameters") + " in the schema cache"
        or_json = " or with a single unnamed json/jsonb parameter" if single_json else ""
        details = f"Searched for the function {schema}.{name}{with_params}{or_json}, but no matches were found in the schema cache."
        raise errors.ApiError(404, "PGRST202", message, details, _rpc_hint(cache, schema, name, keys, overloads))
    return matches[0]


def _rpc_hint(cache: SchemaCache, schema: str, name: str, keys: list[str], overloads: list[Function]) -> str | None:
    import difflib

    if not overloads:
        names = [n for (s, n) in cache.functions if s == schema]
        close = difflib.get_close_matches(name, names, n=1, cutoff=0.75)
        return f"Perhaps you meant to call the function {schema}.{close[0]}" if close else None
    signatures = ["(" + ", ".join(sorted(p.name for p in fn.params)) + ")" for fn in overloads]
    wanted = "(" + ", ".join(keys) + ")"
    close = difflib.get_close_matches(wanted, signatures, n=1, cutoff=0.33) or signatures[:1]
    return f"Perhaps you meant to call the function {schema}.{name}{close[0]}" if close else None
