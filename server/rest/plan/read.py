"""Read plans: the relation a request reads and, for each embed, the relationship that joins
it (PostgREST's Plan.ReadPlan). Trees built here are also the returned part of writes and
of function calls. Raises PostgREST's PGRST1xx/2xx errors for what the schema cache refutes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.rest import errors, fuzzy
from server.rest.api_request.bounds import MAX_BIGINT
from server.rest.api_request.types import (
    ApiRequest,
    ColumnItem,
    EmbedItem,
    Filter,
    Logic,
    MediaType,
    OrderTerm,
    Path,
    Prefer,
    QueryParams,
    SelectItem,
)
from server.rest.plan.config import PlanConfig
from server.rest.plan.tx import Tx
from server.rest.schema_cache import Relationship, SchemaCache, Table


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
    empty: bool = False  # `users()`: joined (for filters and !inner) but adds nothing to the output

    @property
    def to_one(self) -> bool:
        return self.rel is not None and self.rel.cardinality in ("m2o", "o2o")

    @property
    def hoists(self) -> bool:
        """A to-one spread hands its aggregates to its parent, where they group the parent's
        rows (PostgREST's hoistSpreadAggFunctions): `...invoices(total.sum())` sums per group."""
        return self.spread and self.to_one

    @property
    def spreads_aggregates(self) -> bool:
        """Whether aggregates rise into this node from its to-one spreads (at any depth)."""
        return any(c.hoists and (c.has_aggregates or c.spreads_aggregates) for c in self.children)

    @property
    def spread_to_many(self) -> bool:
        """`...messages(id)` on a to-many relationship: each column becomes an array."""
        return self.spread and not self.to_one

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
        raise errors.table_not_found(schema, name, _close_table_hint(cache, schema, name))
    return table


def _close_table_hint(cache: SchemaCache, schema: str, name: str) -> str | None:
    """PostgREST's tableNotFoundHint: the table of the schema most like `name`."""
    close = fuzzy.closest(name, [n for (s, n) in cache.tables if s == schema])
    return f"Perhaps you meant the table '{schema}.{close}'" if close else None


def find_relationship(cache: SchemaCache, parent: Table, embed: EmbedItem) -> Relationship:
    """PostgREST's findRel: the relationships from `parent` to a relation of its schema that
    `name!hint` designates; exactly one must remain."""
    name, hint = embed.name, embed.hint

    def designated(r: Relationship) -> bool:
        target = r.foreign_table[1]
        if r.function is not None:  # a computed relationship is named by its function
            return name == r.function[1]
        if r.is_self:
            # one key, two directions: `family(*)` the children, `parent_id(*)` the parent,
            # `family!parent_id(*)` the children through that column
            if hint is None:
                return ((name == target and r.cardinality == "o2m")
                        or (name == r.own_column and r.cardinality == "m2o"))
            return name == target and r.cardinality == "o2m" and hint == r.foreign_column
        if hint is None:
            # a constraint or column name designates the table, never the views over it
            to_view = cache.tables[r.foreign_table].kind in ("v", "m")
            by_key = r.junction is None and name in (r.constraint, r.own_column)
            return name == target or (by_key and not to_view)
        if name != target:
            return False
        if r.junction is not None:
            return hint == r.junction.table[1]
        return hint in (r.constraint, r.own_column, r.foreign_column)

    candidates = [r for r in cache.relationships.get(parent.qi, [])
                  if r.foreign_table[0] == parent.schema and designated(r)]
    if not candidates:
        raise errors.relationship_not_found(parent.name, name, parent.schema, hint)
    if len(candidates) > 1:
        raise errors.ambiguous_embed(parent.name, name, [r.describe() for r in candidates],
                                     [f"{r.foreign_table[1]}!{r.hint_name()}" for r in candidates])
    return candidates[0]


def read_tree(cache: SchemaCache, root: Table, alias: str, items: list[SelectItem], query: QueryParams,
              aggregates_enabled: bool) -> ReadNode:
    """The tree of `items` rooted at `root`, with the query's filters, logic, order and
    limits attached to the node each one names (`courses.order=...`)."""
    node = ReadNode(root, alias, root.name)
    _fill(cache, node, items, Aliases(), aggregates_enabled)
    _attach(node, query)
    return node


def _fill(cache: SchemaCache, node: ReadNode, items: list[SelectItem], aliases: Aliases, aggregates_enabled: bool) -> None:
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
        _fill(cache, child, item.items, aliases, aggregates_enabled)
        # `users()` (and embeds holding only such) add nothing: PostgREST's empty embed
        child.empty = not child.columns and all(c.empty for c in child.children)
        if child.spread_to_many and (child.has_aggregates or child.spreads_aggregates):
            raise errors.not_implemented("Aggregates are not implemented for one-to-many or many-to-many spreads.")
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


# -- the read plan -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ReadPlan:
    """GET/HEAD on a relation: the tree, the page, the count, the answer's media type."""

    tree: ReadNode
    limit: int | None
    offset: int
    count: str | None  # exact | planned | estimated
    media: MediaType
    applied: tuple[str, ...]  # Preference-Applied
    tx: Tx
    cacheable: bool = True
    max_rows: int | None = None  # db-max-rows, which decides what count=estimated counts


def applied_preferences(prefer: Prefer, tx_applied: str | None) -> tuple[str, ...]:
    """Preference-Applied of a read or a call, in PostgREST's order (prefAppliedHeader)."""
    applied = [f"count={prefer.count}" if prefer.count else None, tx_applied,
               f"handling={prefer.handling}" if prefer.handling else None]
    return tuple(a for a in applied if a)


def page(request: ApiRequest) -> tuple[int | None, int]:
    """(limit, offset) of the top level: the rows both limit/offset and the Range header ask
    for (PostgREST's getRanges: rangeIntersection); none in common is 416. `limit=0` is left
    alone (it asks for no rows)."""
    offset = request.query.offset.get((), 0)
    limit = request.query.limit.get(())
    if request.range is None or limit == 0:
        return limit, offset
    range_offset, range_limit = request.range
    lower = max(offset, range_offset)
    ends = [start + size - 1 for start, size in ((offset, limit), (range_offset, range_limit)) if size is not None]
    upper = min(ends) if ends else None
    if upper is not None and upper < lower:
        raise errors.invalid_range("The lower boundary must be lower than or equal to the upper boundary in the Range header.")
    return (None if upper is None else min(upper - lower + 1, MAX_BIGINT)), lower


def plan_read(request: ApiRequest, cache: SchemaCache, config: PlanConfig) -> ReadPlan:
    table = find_table(cache, request.schema, request.target)
    query = request.query
    tree = read_tree(cache, table, table.name, query.select, query, config.aggregates_enabled)
    limit, offset = page(request)
    _, tx_applied = config.rollback(request.prefer)  # a read-only transaction changes nothing either way
    applied = applied_preferences(request.prefer, tx_applied)
    count = request.prefer.count
    explain = request.media.kind == "plan"
    return ReadPlan(tree, config.row_limit(limit), offset, count, request.media, applied,
                    Tx(read_only=True, rollback=explain), max_rows=config.max_rows)
