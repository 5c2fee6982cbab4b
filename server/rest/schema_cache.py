"""What /rest/v1 knows about the database: tables, views, columns, keys, relationships
(including through views, and computed ones: functions of a row) and functions of the
exposed schemas. Keys and view definitions are read in every schema, so a view in an exposed
schema over tables elsewhere relates like its tables do, as in PostgREST.

Loaded at start, reloaded on `NOTIFY pgrst, 'reload schema'` (sent after DDL by the event
trigger of platform_schema/0400) — like PostgREST's SchemaCache.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psycopg
from psycopg.rows import dict_row

from server.core import role_settings
from server.core.listener import Subscription
from server.core.view_rule import target_entries

if TYPE_CHECKING:
    from server.core.context import AppContext

log = logging.getLogger("supalite.rest")

QI = tuple[str, str]  # (schema, name)


@dataclass
class Column:
    name: str
    type: str  # format_type() text
    base_type: str  # pg_type.typname, e.g. int4, _text, tsvector
    nullable: bool
    default: str | None
    position: int
    description: str | None = None
    enum: list[str] | None = None
    generated: bool = False
    identity: bool = False


@dataclass
class Table:
    schema: str
    name: str
    kind: str  # r, v, m, f, p
    columns: dict[str, Column]
    pk: list[str] = field(default_factory=list)
    insertable: bool = True
    updatable: bool = True
    deletable: bool = True
    description: str | None = None

    @property
    def qi(self) -> QI:
        return (self.schema, self.name)


@dataclass
class Junction:
    table: QI
    constraint1: str
    constraint2: str
    cols_source: list[tuple[str, str]]  # (source col, junction col)
    cols_target: list[tuple[str, str]]  # (junction col, target col)


@dataclass
class Relationship:
    table: QI
    foreign_table: QI
    cardinality: str  # m2o | o2m | o2o | m2m
    constraint: str
    columns: list[tuple[str, str]]  # (table col, foreign col); empty for m2m
    junction: Junction | None = None
    is_self: bool = False
    function: QI | None = None  # a computed relationship: this function of a `table` row gives the rows

    def describe(self) -> dict[str, str]:
        """The `details` entry PostgREST gives for an ambiguous embed."""
        def fmt(cols: list[str]) -> str:
            return "(" + ", ".join(cols) + ")"

        names = {"m2o": "many-to-one", "o2m": "one-to-many", "o2o": "one-to-one", "m2m": "many-to-many"}
        if self.junction:
            j = self.junction
            source, target = fmt([c for _, c in j.cols_source]), fmt([c for c, _ in j.cols_target])
            rel = f"{j.table[1]} using {j.constraint1}{source} and {j.constraint2}{target}"
        else:
            rel = (f"{self.constraint} using {self.table[1]}{fmt([a for a, _ in self.columns])} and "
                   f"{self.foreign_table[1]}{fmt([b for _, b in self.columns])}")
        return {"cardinality": names[self.cardinality], "embedding": f"{self.table[1]} with {self.foreign_table[1]}", "relationship": rel}

    def hint_name(self) -> str:
        return self.junction.table[1] if self.junction else self.constraint

    @property
    def own_column(self) -> str | None:
        """The FK column on this side, when the key has a single column."""
        return self.columns[0][0] if len(self.columns) == 1 and not self.junction else None

    @property
    def foreign_column(self) -> str | None:
        """The referenced column on the other side, when the key has a single column."""
        return self.columns[0][1] if len(self.columns) == 1 and not self.junction else None


@dataclass
class Param:
    name: str
    type: str
    mode: str  # i, o, b, v, t
    has_default: bool = False


@dataclass
class Function:
    schema: str
    name: str
    params: list[Param]  # input params only
    out_columns: list[Param]  # OUT / TABLE columns
    return_type: str
    returns_set: bool
    returns_table: QI | None  # SETOF some_table / some_table
    returns_composite: bool
    volatility: str  # i, s, v
    security_definer: bool
    description: str | None = None


    @property
    def callable(self) -> bool:
        """Whether /rpc can call it: PostgREST's schema cache keeps only functions whose input
        parameters are all named, or with one unnamed when the first is of a type a raw body
        can be (bytea, json, jsonb, text, xml)."""
        unnamed = sum(1 for p in self.params if not p.name)
        return unnamed == 0 or (unnamed == 1 and self.params[0].type in ("bytea", "json", "jsonb", "text", "xml"))

    @property
    def out_columns_are_table(self) -> bool:
        return len(self.out_columns) > 1 or (self.returns_set and len(self.out_columns) >= 1 and self.return_type == "record")


@dataclass
class SchemaCache:
    tables: dict[QI, Table] = field(default_factory=dict)
    relationships: dict[QI, list[Relationship]] = field(default_factory=dict)
    functions: dict[QI, list[Function]] = field(default_factory=dict)


# -- loading ------------------------------------------------------------------------------

# Relations of every schema but PostgreSQL's own: those outside the exposed schemas are only
# read for the keys views inherit from them.
_USER_SCHEMAS = "n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast') and n.nspname not like 'pg\\_%%'"

TABLES_SQL = f"""
select c.oid, n.nspname as schema, c.relname as name, c.relkind as kind, n.nspname = any(%(schemas)s) as exposed,
  obj_description(c.oid, 'pg_class') as description,
  case when c.relkind in ('r', 'p') then true else (pg_relation_is_updatable(c.oid::regclass, true) & 8) = 8 end as insertable,
  case when c.relkind in ('r', 'p') then true else (pg_relation_is_updatable(c.oid::regclass, true) & 4) = 4 end as updatable,
  case when c.relkind in ('r', 'p') then true else (pg_relation_is_updatable(c.oid::regclass, true) & 16) = 16 end as deletable
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('r', 'v', 'm', 'f', 'p') and {_USER_SCHEMAS}
"""

COLUMNS_SQL = f"""
select a.attrelid as oid, a.attname as name, a.attnum as position,
  format_type(a.atttypid, a.atttypmod) as type,
  coalesce(bt.typname, t.typname) as base_type,
  not a.attnotnull as nullable,
  pg_get_expr(d.adbin, d.adrelid) as "default",
  col_description(a.attrelid, a.attnum) as description,
  a.attgenerated <> '' as generated, a.attidentity <> '' as identity,
  case when t.typtype = 'e' then array(select e.enumlabel from pg_enum e where e.enumtypid = t.oid order by e.enumsortorder) end as enum
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace n on n.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and {_USER_SCHEMAS}
order by a.attrelid, a.attnum
"""

KEYS_SQL = f"""
select con.conrelid as oid, con.contype as type, con.conname as name,
  array(select a.attname from unnest(con.conkey) with ordinality k(n, i)
        join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.n order by k.i)::text[] as cols,
  con.confrelid as foid,
  array(select a.attname from unnest(con.confkey) with ordinality k(n, i)
        join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.n order by k.i)::text[] as fcols
from pg_constraint con
where con.contype in ('p', 'u', 'f')
  and (con.conrelid in (select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where {_USER_SCHEMAS}))
"""

UNIQUE_INDEX_SQL = f"""
select i.indrelid as oid,
  array(select a.attname from unnest(i.indkey) k(n) join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n)::text[] as cols
from pg_index i join pg_class c on c.oid = i.indrelid join pg_namespace n on n.oid = c.relnamespace
where i.indisunique and i.indpred is null and {_USER_SCHEMAS}
"""

VIEWS_SQL = f"""
select r.ev_class as oid, r.ev_action::text as action
from pg_rewrite r join pg_class c on c.oid = r.ev_class join pg_namespace n on n.oid = c.relnamespace
where c.relkind in ('v', 'm') and r.rulename = '_RETURN' and {_USER_SCHEMAS}
"""

FUNCTIONS_SQL = """
select p.oid, n.nspname as schema, p.proname as name, p.provolatile as volatility, p.proretset as returns_set,
  p.pronargdefaults as ndefaults, p.prosecdef as security_definer, format_type(p.prorettype, null) as return_type,
  p.prorows as rows, case when p.pronargs = 1 then (select t.typrelid from pg_type t where t.oid = p.proargtypes[0]) end as arg_relid,
  rt.typtype = 'c' or (rt.oid = 'record'::regtype) as returns_composite, rt.typrelid as ret_relid,
  obj_description(p.oid, 'pg_proc') as description,
  coalesce((select json_agg(json_build_object(
      'name', coalesce(p.proargnames[i], ''),
      'type', format_type(coalesce(p.proallargtypes[i], (p.proargtypes::oid[])[i - 1]), null),
      'mode', coalesce(p.proargmodes[i]::text, 'i')) order by i)
    from generate_series(1, coalesce(array_length(p.proallargtypes, 1), p.pronargs)) i), '[]') as args
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
join pg_type rt on rt.oid = p.prorettype
where n.nspname = any(%(schemas)s) and p.prokind = 'f'
  and p.prorettype <> 'trigger'::regtype and p.prorettype <> 'event_trigger'::regtype
"""

def _view_columns(action: str) -> dict[int, tuple[int, int]]:
    """view column number -> (source relation oid, its column number), for the columns that
    come straight from one."""
    return {e.resno: (e.origin_table, e.origin_column) for e in target_entries(action) if e.origin_table}


async def load(conn: psycopg.AsyncConnection, schemas: tuple[str, ...]) -> SchemaCache:
    params = {"schemas": list(schemas)}
    async with conn.cursor(row_factory=dict_row) as cur:
        await cur.execute(TABLES_SQL, params)
        table_rows = await cur.fetchall()
        await cur.execute(COLUMNS_SQL, params)
        column_rows = await cur.fetchall()
        await cur.execute(KEYS_SQL, params)
        key_rows = await cur.fetchall()
        await cur.execute(UNIQUE_INDEX_SQL, params)
        index_rows = await cur.fetchall()
        await cur.execute(VIEWS_SQL, params)
        view_rows = await cur.fetchall()
        await cur.execute(FUNCTIONS_SQL, params)
        function_rows = await cur.fetchall()
    return build(table_rows, column_rows, key_rows, index_rows, view_rows, function_rows)


Row = dict[str, Any]


def build(table_rows: list[Row], column_rows: list[Row], key_rows: list[Row], index_rows: list[Row],
          view_rows: list[Row], function_rows: list[Row]) -> SchemaCache:
    cache = SchemaCache()
    by_oid: dict[int, Table] = {}  # every relation read, exposed or not
    for r in table_rows:
        t = Table(r["schema"], r["name"], r["kind"], {}, insertable=r["insertable"], updatable=r["updatable"],
                  deletable=r["deletable"], description=r["description"])
        by_oid[r["oid"]] = t
        if r["exposed"]:
            cache.tables[t.qi] = t
    attnames: dict[tuple[int, int], str] = {}
    for r in column_rows:
        owner = by_oid.get(r["oid"])
        if owner is None:
            continue
        owner.columns[r["name"]] = Column(r["name"], r["type"], r["base_type"], r["nullable"], r["default"], r["position"],
                                      r["description"], r["enum"], r["generated"], r["identity"])
        attnames[(r["oid"], r["position"])] = r["name"]
    uniques: dict[int, list[set[str]]] = {}
    fks = []
    for r in key_rows:
        if r["type"] == "p" and r["oid"] in by_oid:
            by_oid[r["oid"]].pk = list(r["cols"])
        if r["type"] in ("p", "u"):
            uniques.setdefault(r["oid"], []).append(set(r["cols"]))
        elif r["type"] == "f" and r["oid"] in by_oid and r["foid"] in by_oid:
            fks.append((r["oid"], r["name"], list(r["cols"]), r["foid"], list(r["fcols"])))
    for r in index_rows:
        uniques.setdefault(r["oid"], []).append(set(r["cols"]))

    # view column -> base column, resolved through chains of views
    view_maps: dict[int, dict[int, tuple[int, int]]] = {r["oid"]: _view_columns(r["action"]) for r in view_rows}

    def base_of(oid: int, attnum: int) -> tuple[int, int] | None:
        seen: set[int] = set()
        while oid in view_maps and oid not in seen:
            seen.add(oid)
            src = view_maps[oid].get(attnum)
            if src is None:
                return None
            oid, attnum = src
        return None if oid in view_maps else (oid, attnum)

    # for each base table oid: the (view oid, {base col: view col}) exposing its columns
    exposures: dict[int, list[tuple[int, dict[str, str]]]] = {}
    for void, mapping in view_maps.items():
        per_base: dict[int, dict[str, str]] = {}
        for resno in sorted(mapping):
            base = base_of(void, resno)
            vcol, bcol = attnames.get((void, resno)), attnames.get(base) if base else None
            if base and vcol and bcol:
                per_base.setdefault(base[0], {}).setdefault(bcol, vcol)
        for boid, exposed in per_base.items():
            exposures.setdefault(boid, []).append((void, exposed))
        # views show the PK of their base table when they expose it
        vt = by_oid.get(void)
        for boid, exposed in per_base.items():
            bt = by_oid.get(boid)
            if vt and bt and bt.pk and not vt.pk and all(c in exposed for c in bt.pk):
                vt.pk = [exposed[c] for c in bt.pk]

    def variants(oid: int, cols: list[str]) -> list[tuple[int, list[str]]]:
        """The table itself and every view exposing all of `cols`, with the view's column names."""
        out = [(oid, cols)]
        for void, mapping in exposures.get(oid, []):
            if all(c in mapping for c in cols):
                out.append((void, [mapping[c] for c in cols]))
        return out

    def is_unique(oid: int, cols: list[str]) -> bool:
        return any(u == set(cols) for u in uniques.get(oid, []))

    def add(rel: Relationship) -> None:
        # only between relations a request can name (PostgREST: both in the request's schema)
        if rel.table in cache.tables and rel.foreign_table in cache.tables:
            cache.relationships.setdefault(rel.table, []).append(rel)

    for oid, name, cols, foid, fcols in fks:
        one_to_one = is_unique(oid, cols)
        for toid, tcols in variants(oid, cols):
            for ftoid, ftcols in variants(foid, fcols):
                t, ft = by_oid[toid], by_oid[ftoid]
                pairs = list(zip(tcols, ftcols, strict=False))
                self_rel = toid == ftoid
                add(Relationship(t.qi, ft.qi, "o2o" if one_to_one else "m2o", name, pairs, is_self=self_rel))
                add(Relationship(ft.qi, t.qi, "o2o" if one_to_one else "o2m", name, [(b, a) for a, b in pairs], is_self=self_rel))

    # many-to-many: a junction table whose two FKs' columns are all in its primary key
    by_table: dict[int, list[tuple[str, list[str], int, list[str]]]] = {}
    for oid, name, cols, foid, fcols in fks:
        by_table.setdefault(oid, []).append((name, cols, foid, fcols))
    for joid, jfks in by_table.items():
        jt = by_oid[joid]
        pk = set(jt.pk)
        for i, (n1, c1, f1, fc1) in enumerate(jfks):
            for j, (n2, c2, f2, fc2) in enumerate(jfks):
                if i == j or not pk or not (set(c1) <= pk and set(c2) <= pk) or set(c1) & set(c2):
                    continue
                for s_oid, s_cols in variants(f1, fc1):
                    for t_oid, t_cols in variants(f2, fc2):
                        st, tt = by_oid[s_oid], by_oid[t_oid]
                        junction = Junction(jt.qi, n1, n2, list(zip(s_cols, c1, strict=False)), list(zip(c2, t_cols, strict=False)))
                        add(Relationship(st.qi, tt.qi, "m2m", n1, [], junction, is_self=s_oid == t_oid))

    for r in function_rows:
        args = r["args"] or []
        in_params = [Param(a["name"], a["type"], a["mode"]) for a in args if a["mode"] in ("i", "b", "v")]
        outs = [Param(a["name"], a["type"], a["mode"]) for a in args if a["mode"] in ("o", "b", "t")]
        for p in in_params[len(in_params) - (r["ndefaults"] or 0):]:
            p.has_default = True
        ret_table = by_oid[r["ret_relid"]].qi if r["ret_relid"] in by_oid else None
        if ret_table not in cache.tables:
            ret_table = None
        fn = Function(r["schema"], r["name"], in_params, outs, r["return_type"], r["returns_set"], ret_table,
                      bool(r["returns_composite"]), r["volatility"], r["security_definer"], r["description"])
        cache.functions.setdefault((fn.schema, fn.name), []).append(fn)
        arg_table = by_oid.get(r["arg_relid"]) if r.get("arg_relid") else None
        if arg_table is not None and ret_table is not None:
            _add_computed(cache, arg_table.qi, ret_table, (fn.schema, fn.name), not fn.returns_set or r["rows"] == 1)
    return cache


def _add_computed(cache: SchemaCache, table: QI, target: QI, function: QI, single_row: bool) -> None:
    """A computed relationship (PostgREST's allComputedRels): `function(table row)` gives rows
    of `target`. It takes the place of the key relationships to a relation of the same name."""
    if table not in cache.tables or target not in cache.tables:
        return
    rels = cache.relationships.setdefault(table, [])
    rels[:] = [r for r in rels if r.function is not None or r.foreign_table[1] != function[1]]
    rels.append(Relationship(table, target, "m2o" if single_row else "o2m", function[1], [],
                             is_self=table == target, function=function))


class SchemaCacheHolder:
    """The current cache of one process, loaded on the owner's pool and reloaded in the
    background on `NOTIFY pgrst` (through the process's shared listener)."""

    def __init__(self, ctx: AppContext, schemas: tuple[str, ...]) -> None:
        self.ctx = ctx
        self.schemas = schemas
        self.cache: SchemaCache | None = None
        self._subscription: Subscription | None = None
        self._reloading = asyncio.Lock()
        self.on_reload: list[Callable[[SchemaCache], None]] = []

    async def reload(self) -> SchemaCache:
        async with self._reloading, self.ctx.admin_pool.connection() as conn:
            # One transaction: the catalog queries see one state of the schema.
            self.cache = await load(conn, self.schemas)
            await role_settings.load(conn)  # `notify pgrst` also picks up ALTER ROLE ... SET
        for cb in self.on_reload:
            cb(self.cache)
        return self.cache

    async def start(self) -> None:
        await self.reload()
        # Reloading on (re)connect catches changes made while nobody listened.
        self._subscription = self.ctx.listener.subscribe(
            ("pgrst",), on_connect=self._catch_up, on_notify=self._notified, name="schema cache")

    async def _catch_up(self) -> None:
        await self.reload()

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None

    async def _notified(self, note: psycopg.Notify) -> None:
        if not _asks_reload(note):
            return
        # A migration run statement by statement (psql, the CLI) sends one notification per
        # DDL statement: the burst is coalesced into one reload once no notification came
        # for BURST_QUIET_S, or BURST_CEILING_S after its first (a burst that never ends
        # still reloads). PostgREST reloads at once and again 100 ms after each reload while
        # notifications keep coming; one reload per burst costs the catalog less.
        subscription = self._subscription
        if subscription is not None:
            ceiling = time.monotonic() + BURST_CEILING_S
            while True:
                subscription.take(_asks_reload)  # the burst so far: this reload covers it
                wait = min(subscription.last_arrival + BURST_QUIET_S, ceiling) - time.monotonic()
                if wait <= 0.001:  # the loop's timers may wake this much early
                    break
                await asyncio.sleep(wait)
        await self.reload()


BURST_QUIET_S = 0.05
BURST_CEILING_S = 0.5


def _asks_reload(note: psycopg.Notify) -> bool:
    return note.payload.strip() in ("", "reload schema", "reload config")
