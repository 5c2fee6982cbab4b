"""Read what the TypeScript types describe from pg_catalog: relations and their columns,
foreign keys (also as seen through views), functions and types.

The same facts postgres-meta gathers for `supabase gen types typescript`, in one read-only
transaction. Every query binds its values; nothing is composed from input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import psycopg
from psycopg.rows import dict_row

from server.core.view_rule import target_entries


@dataclass
class Relation:
    oid: int
    schema: str
    name: str
    kind: str  # r, p (tables), f (foreign table), v (view), m (materialized view)
    insert_enabled: bool = False  # views: INSERT works (auto-updatable, trigger or rule)
    update_enabled: bool = False


@dataclass
class Column:
    table_oid: int
    name: str
    format: str  # type name (a domain's base type), `_x` for arrays
    type_schema: str
    has_default: bool
    identity: str | None  # ALWAYS, BY DEFAULT
    is_generated: bool
    is_nullable: bool
    is_updatable: bool


@dataclass
class Relationship:
    foreign_key_name: str
    schema: str
    relation: str
    columns: list[str]
    is_one_to_one: bool
    referenced_schema: str
    referenced_relation: str
    referenced_columns: list[str]


@dataclass
class Arg:
    mode: str  # in, out, inout, variadic, table
    name: str
    type_id: int
    has_default: bool


@dataclass
class Function:
    oid: int
    schema: str
    name: str
    args: list[Arg]
    argument_types: str
    identity_argument_types: str
    return_type_id: int
    return_type: str
    return_type_relation_id: int | None
    returns_set: bool
    prorows: float | None  # set-returning functions' ROWS estimate


@dataclass
class PgType:
    oid: int
    name: str
    schema: str
    format: str  # format_type(): schema-qualified when off the search path
    enums: list[str]
    attributes: list[tuple[str, int]]  # composite types: (name, type oid) in order
    relation_id: int | None  # row types of tables, views, composite types


@dataclass
class Metadata:
    schemas: list[str]
    relations: list[Relation]
    columns: list[Column]
    relationships: list[Relationship]
    functions: list[Function]
    types: list[PgType]
    types_by_oid: dict[int, PgType] = field(default_factory=dict)


SCHEMAS_SQL = """
select n.nspname as name
from pg_namespace n
where n.nspname = any(%(schemas)s)
  and not starts_with(n.nspname, 'pg_')
  and (pg_has_role(n.nspowner, 'USAGE') or has_schema_privilege(n.oid, 'CREATE, USAGE'))
"""

RELATIONS_SQL = """
select c.oid::int8 as oid, n.nspname as schema, c.relname as name, c.relkind::text as kind,
  c.relkind = 'v' and (pg_relation_is_updatable(c.oid, true) & 8) = 8 as insert_enabled,
  c.relkind = 'v' and (pg_relation_is_updatable(c.oid, true) & 4) = 4 as update_enabled
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
where n.nspname = any(%(schemas)s)
  and c.relkind in ('r', 'p', 'f', 'v', 'm')
  and (c.relkind not in ('r', 'p') or (
    not pg_is_other_temp_schema(n.oid)
    and (pg_has_role(c.relowner, 'USAGE')
      or has_table_privilege(c.oid, 'SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER')
      or has_any_column_privilege(c.oid, 'SELECT, INSERT, UPDATE, REFERENCES'))))
"""

# A view column is writable when Postgres can update it, or when an INSTEAD OF trigger or
# an unconditional INSTEAD rule rewrites writes to the view (tgtype 64: INSTEAD, 4|16:
# INSERT or UPDATE; ev_type 2: UPDATE, 3: INSERT).
COLUMNS_SQL = """
select c.oid::int8 as table_oid, a.attname as name,
  coalesce(bt.typname, t.typname) as format,
  coalesce(nbt.nspname, nt.nspname) as type_schema,
  a.atthasdef as has_default,
  case a.attidentity when 'a' then 'ALWAYS' when 'd' then 'BY DEFAULT' end as identity,
  a.attgenerated <> '' as is_generated,
  not (a.attnotnull or (t.typtype = 'd' and t.typnotnull)) as is_nullable,
  (c.relkind in ('r', 'p') or (c.relkind in ('v', 'f') and (
    pg_column_is_updatable(c.oid, a.attnum, false)
    or exists (select from pg_trigger tg where tg.tgrelid = c.oid and tg.tgtype & 64 <> 0
               and tg.tgtype & 20 <> 0 and not tg.tgisinternal)
    or exists (select from pg_rewrite rw where rw.ev_class = c.oid and rw.is_instead
               and rw.ev_type in ('2', '3') and rw.ev_qual::text = '<>')))) as is_updatable
from pg_attribute a
join pg_class c on c.oid = a.attrelid
join pg_namespace nc on nc.oid = c.relnamespace
join pg_type t on t.oid = a.atttypid
join pg_namespace nt on nt.oid = t.typnamespace
left join pg_type bt on t.typtype = 'd' and bt.oid = t.typbasetype
left join pg_namespace nbt on nbt.oid = bt.typnamespace
where nc.nspname = any(%(schemas)s)
  and not pg_is_other_temp_schema(nc.oid)
  and a.attnum > 0 and not a.attisdropped
  and c.relkind in ('r', 'v', 'm', 'f', 'p')
  and (pg_has_role(c.relowner, 'USAGE')
    or has_column_privilege(c.oid, a.attnum, 'SELECT, INSERT, UPDATE, REFERENCES'))
order by c.oid, a.attnum
"""

# One-to-one when the foreign key's columns (in key order) are exactly those of the
# table's primary key or of a unique constraint (in column order), as PostgREST decides.
FOREIGN_KEYS_SQL = """
with fk as (
  select con.oid, con.conname, con.connamespace, con.conrelid, con.confrelid,
    array(select a.attname from unnest(con.conkey) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = con.conrelid and a.attnum = k.attnum
          order by k.ord) as columns,
    array(select a.attname from unnest(con.confkey) with ordinality k(attnum, ord)
          join pg_attribute a on a.attrelid = con.confrelid and a.attnum = k.attnum
          order by k.ord) as referenced_columns
  from pg_constraint con
  join pg_namespace n on n.oid = con.connamespace
  where con.contype = 'f' and con.conparentid = 0 and n.nspname = any(%(schemas)s)
)
select fk.conname as foreign_key_name, n.nspname as schema, tab.relname as relation,
  fk.columns, rn.nspname as referenced_schema, ref.relname as referenced_relation,
  fk.referenced_columns,
  exists (
    select from pg_constraint u
    where u.conrelid = fk.conrelid and u.connamespace = fk.connamespace and u.contype in ('p', 'u')
      and array(select a.attname from unnest(u.conkey) k(attnum)
                join pg_attribute a on a.attrelid = u.conrelid and a.attnum = k.attnum
                order by a.attnum) = fk.columns
  ) as is_one_to_one
from fk
join pg_namespace n on n.oid = fk.connamespace
join pg_class tab on tab.oid = fk.conrelid
join pg_class ref on ref.oid = fk.confrelid
join pg_namespace rn on rn.oid = ref.relnamespace
order by fk.oid
"""

VIEW_RULES_SQL = """
select c.oid::int8 as oid, n.nspname as schema, c.relname as name, r.ev_action::text as action
from pg_class c
join pg_namespace n on n.oid = c.relnamespace
join pg_rewrite r on r.ev_class = c.oid and r.rulename = '_RETURN'
where c.relkind in ('v', 'm') and n.nspname = any(%(schemas)s)
order by c.oid
"""

ATTRIBUTES_SQL = """
select a.attrelid::int8 as oid, a.attnum as attnum, a.attname as name
from pg_attribute a
where a.attrelid = any(%(oids)s) and a.attnum > 0 and not a.attisdropped
"""

# Keys a view column can stand for: primary and foreign keys on their own table ("p", "f"),
# and the referenced side of foreign keys in the exposed schemas ("f_ref").
KEYS_SQL = """
select con.oid::int8 as oid, con.conname as name, con.contype::text as type, con.conrelid::int8 as rel,
  con.conkey::int4[] as attnums
from pg_constraint con
where con.contype in ('p', 'f')
union all
select con.oid::int8, con.conname, 'f_ref', con.confrelid::int8, con.confkey::int4[]
from pg_constraint con
join pg_namespace n on n.oid = con.connamespace
where con.contype = 'f' and n.nspname = any(%(schemas)s)
order by 1, 3
"""

RELATION_NAMES_SQL = """
select c.oid::int8 as oid, n.nspname as schema, c.relname as name
from pg_class c join pg_namespace n on n.oid = c.relnamespace
where c.oid = any(%(oids)s)
"""

FUNCTIONS_SQL = """
select p.oid::int8 as oid, n.nspname as schema, p.proname as name,
  coalesce(p.proargmodes::text[],
           array_fill('i'::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])) as arg_modes,
  coalesce(p.proargnames,
           array_fill(''::text, array[cardinality(coalesce(p.proallargtypes, p.proargtypes::oid[]))])) as arg_names,
  coalesce(p.proallargtypes, p.proargtypes::oid[])::int8[] as arg_types,
  p.pronargs as nargs, p.pronargdefaults as ndefaults,
  pg_get_function_arguments(p.oid) as argument_types,
  pg_get_function_identity_arguments(p.oid) as identity_argument_types,
  p.prorettype::int8 as return_type_id,
  pg_get_function_result(p.oid) as return_type,
  nullif(rt.typrelid, 0)::int8 as return_type_relation_id,
  p.proretset as returns_set,
  case when p.proretset then nullif(p.prorows, 0) end as prorows
from pg_proc p
join pg_namespace n on n.oid = p.pronamespace
left join pg_type rt on rt.oid = p.prorettype
where n.nspname = any(%(schemas)s) and p.prokind = 'f'
order by p.oid
"""

# Every type of every schema: a column may use any of them. Row types of tables and views
# are kept (functions take and return rows), array types too.
TYPES_SQL = """
select t.oid::int8 as oid, t.typname as name, n.nspname as schema, format_type(t.oid, null) as format,
  coalesce((select array_agg(e.enumlabel order by e.enumsortorder) from pg_enum e
            where e.enumtypid = t.oid), '{}') as enums,
  case when c.relkind = 'c' then
    coalesce((select json_agg(json_build_object('name', a.attname, 'type_id', a.atttypid::int8)
                              order by a.attnum)
              from pg_attribute a where a.attrelid = c.oid and not a.attisdropped), '[]')
  else '[]' end as attributes,
  nullif(t.typrelid, 0)::int8 as relation_id
from pg_type t
join pg_namespace n on n.oid = t.typnamespace
left join pg_class c on c.oid = t.typrelid
where t.typrelid = 0 or c.relkind in ('c', 'r', 'v', 'm', 'p', 'f')
order by t.oid
"""

_MODES = {"i": "in", "o": "out", "b": "inout", "v": "variadic", "t": "table"}


def introspect(conninfo: str, schemas: list[str]) -> Metadata:
    with psycopg.connect(conninfo, autocommit=False) as conn:
        conn.read_only = True
        with conn.cursor(row_factory=dict_row) as cur:
            # Types print unqualified in argument lists when the search path shows them, as
            # for postgres-meta's connection: the default path, whatever the URL set.
            cur.execute("set local search_path to \"$user\", public")
            return _read(cur, schemas)


def _read(cur: psycopg.Cursor[dict[str, Any]], schemas: list[str]) -> Metadata:
    params = {"schemas": schemas}
    cur.execute(SCHEMAS_SQL, params)
    found = {row["name"] for row in cur.fetchall()}
    cur.execute(RELATIONS_SQL, params)
    relations = [Relation(**row) for row in cur.fetchall()]
    cur.execute(COLUMNS_SQL, params)
    columns = [Column(**row) for row in cur.fetchall()]
    cur.execute(FOREIGN_KEYS_SQL, params)
    foreign_keys = [Relationship(**row) for row in cur.fetchall()]
    relationships = foreign_keys + _through_views(cur, schemas, foreign_keys)
    cur.execute(FUNCTIONS_SQL, params)
    functions = [f for f in (_function(row) for row in cur.fetchall())
                 if f.return_type not in ("trigger", "event_trigger")]
    cur.execute(TYPES_SQL)
    types = [PgType(row["oid"], row["name"], row["schema"], row["format"], list(row["enums"]),
                    [(a["name"], a["type_id"]) for a in row["attributes"]], row["relation_id"])
             for row in cur.fetchall()]
    return Metadata(
        schemas=[s for s in dict.fromkeys(schemas) if s in found],
        relations=relations,
        columns=columns,
        relationships=relationships,
        functions=functions,
        types=types,
        types_by_oid={t.oid: t for t in types},
    )


def _function(row: dict[str, Any]) -> Function:
    nargs, ndefaults = row["nargs"], row["ndefaults"]
    args = []
    # Defaults are counted over the input arguments but matched by position over all of
    # them, as postgres-meta does (an OUT argument before a defaulted one shifts them).
    for i, (mode, name, type_id) in enumerate(zip(row["arg_modes"], row["arg_names"], row["arg_types"], strict=False)):
        has_default = nargs - ndefaults <= i < nargs
        args.append(Arg(_MODES.get(mode, "table"), name or "", type_id, has_default))
    return Function(
        oid=row["oid"], schema=row["schema"], name=row["name"], args=args,
        argument_types=row["argument_types"], identity_argument_types=row["identity_argument_types"],
        return_type_id=row["return_type_id"], return_type=row["return_type"],
        return_type_relation_id=row["return_type_relation_id"], returns_set=row["returns_set"],
        prorows=row["prorows"],
    )


@dataclass
class _KeyDependency:
    table_schema: str
    table_name: str
    view_schema: str
    view_name: str
    constraint_name: str
    constraint_type: str
    columns: list[tuple[str, list[str]]]  # (table column, view columns showing it)


def _through_views(cur: psycopg.Cursor[dict[str, Any]], schemas: list[str],
                   foreign_keys: list[Relationship]) -> list[Relationship]:
    """The foreign keys again with a view on either side, where the view shows every column
    of the key (PostgREST embeds through such views; postgres-meta lists them)."""
    cur.execute(VIEW_RULES_SQL, {"schemas": schemas})
    views = {row["oid"]: row for row in cur.fetchall()}
    if not views:
        return []
    # (view, column) -> (source relation, column), for the view's own select list.
    sources: dict[tuple[int, int], tuple[int, int]] = {}
    for oid, row in views.items():
        for entry in target_entries(row["action"]):
            sources[(oid, entry.resno)] = (entry.origin_table, entry.origin_column)
    cur.execute(ATTRIBUTES_SQL, {"oids": list(views)})
    view_columns = {(row["oid"], row["attnum"]): row["name"] for row in cur.fetchall()}

    # Each view column stands for its source column and, through views on views, for the
    # source's own source, down to a table (or round a cycle, once).
    shows: dict[tuple[int, int, int], list[str]] = {}  # (view, table, column) -> view columns

    def note(view: int, resno: int, origin: tuple[int, int]) -> None:
        name = view_columns.get((view, resno))
        names = shows.setdefault((view, *origin), [])
        if name is not None and name not in names:
            names.append(name)

    for (view, resno), origin in sources.items():
        path = [origin[0]]
        note(view, resno, origin)
        while origin in sources:
            origin = sources[origin]
            cycle = origin[0] in path
            path.append(origin[0])
            note(view, resno, origin)
            if cycle:
                break

    cur.execute(KEYS_SQL, {"schemas": schemas})
    shown_tables = {table for (_, table, _) in shows}
    keys = [row for row in cur.fetchall() if row["rel"] in shown_tables]
    if not keys:
        return []
    oids = list({row["rel"] for row in keys} | set(views))
    cur.execute(RELATION_NAMES_SQL, {"oids": oids})
    names = {row["oid"]: (row["schema"], row["name"]) for row in cur.fetchall()}
    cur.execute(ATTRIBUTES_SQL, {"oids": list({row["rel"] for row in keys})})
    table_columns = {(row["oid"], row["attnum"]): row["name"] for row in cur.fetchall()}

    dependencies: list[_KeyDependency] = []
    for row in keys:
        table = row["rel"]
        for view in views:
            mapped = [(table_columns.get((table, attnum), ""), shows.get((view, table, attnum)))
                      for attnum in row["attnums"]]
            if not mapped or any(not cols for _, cols in mapped):
                continue  # the view does not show the whole key
            dependencies.append(_KeyDependency(
                *names[table], *names[view], row["name"], row["type"],
                [(col, cols or []) for col, cols in mapped]))
    return _expand(foreign_keys, dependencies)


def _combinations(columns: list[tuple[str, list[str]]]) -> list[list[str]]:
    """Every choice of one view column per key column (a view may show a column twice)."""
    out: list[list[str]] = [[]]
    for _, choices in columns:
        out = [[*combo, choice] for combo in out for choice in choices]
    return out


def _expand(foreign_keys: list[Relationship], deps: list[_KeyDependency]) -> list[Relationship]:
    out: list[Relationship] = []
    for fk in foreign_keys:
        from_views = [d for d in deps if d.table_schema == fk.schema and d.table_name == fk.relation
                      and d.constraint_name == fk.foreign_key_name and d.constraint_type == "f"]
        to_views = [d for d in deps if d.table_schema == fk.referenced_schema
                    and d.table_name == fk.referenced_relation
                    and d.constraint_name == fk.foreign_key_name and d.constraint_type == "f_ref"]
        for d in from_views:
            for cols in _combinations(d.columns):
                out.append(Relationship(fk.foreign_key_name, d.view_schema, d.view_name, cols,
                                        fk.is_one_to_one, fk.referenced_schema, fk.referenced_relation,
                                        fk.referenced_columns))
        for d in to_views:
            for cols in _combinations(d.columns):
                out.append(Relationship(fk.foreign_key_name, fk.schema, fk.relation, fk.columns,
                                        fk.is_one_to_one, d.view_schema, d.view_name, cols))
        for d in from_views:
            for cols in _combinations(d.columns):
                for r in to_views:
                    for rcols in _combinations(r.columns):
                        out.append(Relationship(fk.foreign_key_name, d.view_schema, d.view_name, cols,
                                                fk.is_one_to_one, r.view_schema, r.view_name, rcols))
    return out
