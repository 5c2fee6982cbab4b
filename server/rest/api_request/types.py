"""What a parsed request is made of (PostgREST's ApiRequest/Types.hs): the select tree,
filters, logic trees, order terms, the Prefer and media type of the headers, the query
parameters, and the ApiRequest that holds them. Plain data, no parsing: every other module
of the package builds these, and the plan stage reads them.

Parsed values are cached and shared between requests (query_params.py, preferences.py), so
their dataclasses are frozen; the lists and dicts they hold are never changed after parsing
either (psycopg binds a filter's list as an array, which a tuple would not be). ApiRequest is
made per request and never cached: not frozen, which would cost the fast path ~2 µs a request."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field
from typing import Any

Path = tuple[str, ...]


@dataclass(frozen=True)
class JsonOp:
    arrow: str  # "->" or "->>"
    key: str
    is_index: bool = False


@dataclass(frozen=True)
class Field:
    name: str
    json_path: tuple[JsonOp, ...] = ()

    @property
    def default_alias(self) -> str:
        """PostgREST names `a->b->>c` after its last key."""
        return self.json_path[-1].key if self.json_path else self.name


@dataclass(frozen=True)
class ColumnItem:
    field: Field
    alias: str | None = None
    cast: str | None = None
    aggregate: str | None = None
    aggregate_cast: str | None = None


@dataclass(frozen=True)
class EmbedItem:
    name: str
    alias: str | None = None
    hint: str | None = None
    join: str | None = None  # "inner" | "left" | None
    spread: bool = False
    items: list[SelectItem] = field(default_factory=list)


SelectItem = ColumnItem | EmbedItem


@dataclass(frozen=True)
class Filter:
    field: Field
    op: str
    value: Any  # str, list[str] for `in`, or the `is` keyword
    negate: bool = False
    quantifier: str | None = None  # "any" | "all"
    language: str | None = None  # fts config


@dataclass(frozen=True)
class Logic:
    op: str  # "and" | "or"
    negate: bool
    children: list[Logic | Filter]


@dataclass(frozen=True)
class OrderTerm:
    field: Field
    direction: str | None = None  # "asc" | "desc"
    nulls: str | None = None  # "first" | "last"
    relation: str | None = None  # related order: order=rel(col)


@dataclass(frozen=True)
class Prefer:
    return_: str | None = None  # minimal | headers-only | representation
    count: str | None = None  # exact | planned | estimated
    resolution: str | None = None  # merge-duplicates | ignore-duplicates
    missing: str | None = None  # default | null
    tx: str | None = None  # commit | rollback
    handling: str | None = None
    max_affected: int | None = None
    params: str | None = None
    invalid: tuple[str, ...] = ()


@dataclass(frozen=True)
class MediaType:
    kind: str  # json | object | csv | geojson | plan | text | octet
    nulls_stripped: bool = False
    plan_format: str = "text"  # json | text
    plan_options: tuple[str, ...] = ()  # known options only, in PostgREST's order
    plan_for: str | None = None  # the media type explained (`for="text/csv"`), as its mime

    @property
    def content_type(self) -> str:
        """The Content-Type of an answer in this media type, spelled as PostgREST's toMime."""
        if self.kind == "object":
            return "application/vnd.pgrst.object+json" + (";nulls=stripped" if self.nulls_stripped else "") + "; charset=utf-8"
        if self.kind == "csv":
            return "text/csv; charset=utf-8"
        if self.kind == "geojson":
            return "application/geo+json; charset=utf-8"
        if self.kind == "plan":
            plan_for = f'; for="{self.plan_for}"' if self.plan_for else ""
            options = "; options=" + "|".join(self.plan_options) if self.plan_options else ""
            return f"application/vnd.pgrst.plan+{self.plan_format}{plan_for}{options}; charset=utf-8"
        if self.kind == "text":
            return "text/plain; charset=utf-8"
        if self.kind == "octet":
            return "application/octet-stream"
        if self.nulls_stripped:
            return "application/vnd.pgrst.array+json;nulls=stripped; charset=utf-8"
        return "application/json; charset=utf-8"

    @property
    def output(self) -> MediaType:
        """What the statement builds: the media type itself, or the one an EXPLAIN is for."""
        if self.kind != "plan" or self.plan_for is None:
            return self
        return PLAN_TARGETS[self.plan_for]


@dataclass(frozen=True)
class QueryParams:
    select: list[SelectItem] = field(default_factory=lambda: [ColumnItem(Field("*"))])
    filters: dict[Path, list[Filter]] = field(default_factory=dict)
    logic: dict[Path, list[Logic]] = field(default_factory=dict)
    order: dict[Path, list[OrderTerm]] = field(default_factory=dict)
    limit: dict[Path, int] = field(default_factory=dict)
    offset: dict[Path, int] = field(default_factory=dict)
    columns: list[str] | None = None
    on_conflict: list[str] | None = None
    rpc_args: dict[str, list[str]] = field(default_factory=dict)  # GET rpc: non-filter params
    has_select: bool = False


@dataclass(slots=True)
class ApiRequest:
    """What a request asks, parsed from its path, query string, headers and body; no
    database involved (PostgREST's ApiRequest). The plan stage resolves it against the
    schema cache; no stage changes it."""

    method: str
    action: str  # schema | read | create | update | upsert | delete | call
    target: str  # the relation or function name ("" for the schema root)
    schema: str
    query: QueryParams
    prefer: Prefer
    media: MediaType
    range: tuple[int, int | None] | None  # Range header of a relation read: (offset, limit)
    content_type: str
    payload: Any  # the parsed body: None without one
    body: bytes
    body_shape: Hashable | None  # what of the body shapes the statement (body_shape); None: not cacheable


# media types an EXPLAIN may be `for`, by their mime as the answer names them
PLAN_TARGETS = {"application/json": MediaType("json"), "text/csv": MediaType("csv"),
                "application/geo+json": MediaType("geojson"),
                "application/vnd.pgrst.object+json": MediaType("object"),
                "application/vnd.pgrst.object+json;nulls=stripped": MediaType("object", nulls_stripped=True),
                "application/vnd.pgrst.array+json;nulls=stripped": MediaType("json", nulls_stripped=True)}
