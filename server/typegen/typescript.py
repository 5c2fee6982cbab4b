"""The `Database` type of `supabase gen types typescript`, from introspected metadata.

Follows postgres-meta's TypeScript template (the generator the Supabase CLI runs), quirks
included, so `createClient<Database>` types every call as it would against Supabase:
- Tables: Row / Insert / Update / Relationships; Insert makes optional what has a default,
  is nullable or an identity; identity-always and generated columns are `?: never`.
- Views: Row, Insert / Update only when writable, Relationships through the view.
- Functions: Args (defaults optional) and Returns (`[]` for set-returning), SetofOptions
  when rows of a relation come back; overloads are a union.
- Enums, CompositeTypes, then the helper types and `Constants`.
Everything is ordered by name with upstream's collation, so the output is stable.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace

from server.typegen.collation import sort_by
from server.typegen.doc import Doc, render
from server.typegen.helpers import HELPER_TYPES, JSON_TYPE
from server.typegen.introspect import Arg, Column, Function, Metadata, PgType, Relation, Relationship
from server.typegen.tstypes import (
    ArrayOf,
    Intersection,
    Literal,
    Name,
    Object,
    ObjectValue,
    Prop,
    TsType,
    Tuple,
    Union_,
    string_literal,
    to_doc,
    value_doc,
)

# supalite serves PostgREST 12's API; postgrest-js reads this to pick its typing rules.
POSTGREST_VERSION = "12"

VALID_UNNAMED_ARG_TYPES = {114, 3802, 25}  # json, jsonb, text: PostgREST passes a body
IN_MODES = ("in", "inout", "variadic")
NEVER = "[_ in never]: never"
INTERNAL_COMMENT = [
    "// Allows to automatically instantiate createClient with right options",
    "// instead of createClient<Database, { PostgrestVersion: 'XX' }>(URL, KEY)",
]

_NUMBER = {"int2", "int4", "int8", "float4", "float8", "numeric"}
_STRING = {"bytea", "bpchar", "varchar", "date", "text", "citext", "time", "timetz", "timestamp",
           "timestamptz", "uuid", "vector", "interval"}


def _ref(*path: str) -> Name:
    return Name("Database" + "".join(f"[{string_literal(p)}]" for p in path))


def _bool(value: bool) -> Name:
    return Name("true" if value else "false")


def _union(*members: TsType) -> TsType:
    """`a | b` where either side may be a union already: the template joins text, so the
    result is one flat union."""
    flat: list[TsType] = []
    for member in members:
        flat.extend(member.members if isinstance(member, Union_) else [member])
    return flat[0] if len(flat) == 1 else Union_(flat)


def _append_array(ts: TsType) -> TsType:
    """The template appends `[]` to the text of a return type: on a union or intersection
    it binds to the last member only."""
    if isinstance(ts, Union_) and len(ts.members) > 1:
        return Union_([*ts.members[:-1], ArrayOf(ts.members[-1])])
    if isinstance(ts, Intersection):
        return Intersection([*ts.members[:-1], ArrayOf(ts.members[-1])])
    return ArrayOf(ts)


def _nullable(ts: TsType, is_nullable: bool) -> TsType:
    if isinstance(ts, Name) and ts.text == "Json" and not is_nullable:
        return Name("NonNullable<Json>")
    if (isinstance(ts, Name) and ts.text in ("unknown", "any")) or not is_nullable:
        return ts
    return _union(ts, Name("null"))


@dataclass
class _SchemaObjects:
    tables: list[Relation]
    views: list[Relation]
    functions: list[tuple[Function, list[Arg]]]
    enums: list[PgType]
    composites: list[PgType]


class _Generator:
    def __init__(self, md: Metadata) -> None:
        self.schemas = sort_by(md.schemas, lambda s: s)
        relations = sort_by(sorted(md.relations, key=lambda r: r.oid), lambda r: r.schema, lambda r: r.name)
        self.tables = [r for r in relations if r.kind in ("r", "p")]
        self.foreign_tables = [r for r in relations if r.kind == "f"]
        self.views = [r for r in relations if r.kind == "v"]
        self.matviews = [r for r in relations if r.kind == "m"]
        self.relation_by_oid = {r.oid: r for r in relations}
        self.columns: dict[int, list[Column]] = {}
        for column in sort_by(md.columns, lambda c: c.name):
            self.columns.setdefault(column.table_oid, []).append(column)
        self.relationships = sort_by(
            md.relationships, lambda r: r.foreign_key_name, lambda r: r.referenced_relation,
            lambda r: _json_list(r.referenced_columns))
        self.types = sort_by(sorted(md.types, key=lambda t: t.oid), lambda t: t.schema, lambda t: t.name)
        self.types_by_oid = {t.oid: t for t in self.types}
        self.relation_types = {t.oid: t for t in self.types if t.relation_id}
        self.types_by_name: dict[str, list[PgType]] = {}
        for t in self.types:
            self.types_by_name.setdefault(t.name, []).append(t)
        functions = [replace(fn, args=sort_by(fn.args, lambda a: a.name)) for fn in sort_by(
            sorted(md.functions, key=lambda f: f.oid), lambda f: f.schema, lambda f: f.name,
            lambda f: f.identity_argument_types)]
        self.by_schema = {s: self._schema_objects(s, functions) for s in self.schemas}

    # --- what each schema holds -----------------------------------------------------------

    def _schema_objects(self, schema: str, functions: list[Function]) -> _SchemaObjects:
        tables = sort_by([r for r in self.tables + self.foreign_tables if r.schema == schema], lambda r: r.name)
        views = sort_by([r for r in self.views + self.matviews if r.schema == schema], lambda r: r.name)
        exposed = [(fn, [a for a in fn.args if a.mode in IN_MODES]) for fn in functions if fn.schema == schema]
        exposed = sort_by([(fn, args) for fn, args in exposed if self._callable(fn, args)], lambda p: p[0].name)
        enums = sort_by([t for t in self.types if t.schema == schema and t.enums], lambda t: t.name)
        composites = sort_by([t for t in self.types if t.schema == schema and t.attributes], lambda t: t.name)
        return _SchemaObjects(tables, views, exposed, enums, composites)

    def _callable(self, fn: Function, args: list[Arg]) -> bool:
        """Functions PostgREST can call: named arguments, or one unnamed json/jsonb/text
        argument, or a table row (a computed field)."""
        if not args or all(a.name for a in args):
            return True
        if all(a.name or (a.has_default and a.type_id in VALID_UNNAMED_ARG_TYPES) for a in args):
            return True
        return len(args) == 1 and (args[0].type_id in VALID_UNNAMED_ARG_TYPES or args[0].type_id in self.relation_types)

    def _relationships(self, rel: Relation) -> list[Relationship]:
        return [r for r in self.relationships
                if r.schema == rel.schema and r.relation == rel.name and r.referenced_schema == rel.schema]

    def _returned_relation_name(self, fn: Function) -> str | None:
        if not fn.return_type_relation_id:
            return None
        relation = self.relation_by_oid.get(fn.return_type_relation_id)
        if relation is not None:
            return relation.name
        row_type = self.relation_types.get(fn.return_type_id)
        return row_type.name if row_type else None

    # --- types ------------------------------------------------------------------------------

    def ts_type(self, schema: str, pg_type: str, type_schema: str | None = None) -> TsType:
        if pg_type == "bool":
            return Name("boolean")
        if pg_type in _NUMBER:
            return Name("number")
        if pg_type in _STRING:
            return Name("string")
        if pg_type in ("json", "jsonb"):
            return Name("Json")
        if pg_type == "void":
            return Name("undefined")
        if pg_type == "record":
            return Name("Record<string, unknown>")
        if pg_type.startswith("_"):
            return ArrayOf(self.ts_type(schema, pg_type[1:], type_schema))
        preferred = type_schema or schema
        named = self.types_by_name.get(pg_type, [])
        enums = [t for t in named if t.enums]
        if enums:
            enum = next((t for t in enums if t.schema == preferred), enums[0])
            if enum.schema in self.schemas:
                return _ref(enum.schema, "Enums", enum.name)
            return _union(*(Literal(v) for v in enum.enums))
        composites = [t for t in named if t.attributes]
        if composites:
            composite = next((t for t in composites if t.schema == preferred), composites[0])
            if composite.schema in self.schemas:
                return _ref(composite.schema, "CompositeTypes", composite.name)
            return Name("unknown")
        # A row type: the relation in the preferred schema first, then any of that name.
        kinds = (("Tables", self.tables), ("Tables", self.foreign_tables), ("Views", self.views),
                 ("Views", self.matviews))
        for same_schema in (True, False):
            for kind, relations in kinds:
                found = next((r for r in relations
                              if r.name == pg_type and (r.schema == preferred or not same_schema)), None)
                if found is not None:
                    in_output = found.schema in self.schemas
                    return _ref(found.schema, kind, found.name, "Row") if in_output else Name("unknown")
        return Name("unknown")

    def type_of_oid(self, schema: str, oid: int) -> TsType:
        found = self.types_by_oid.get(oid)
        return self.ts_type(schema, found.name, found.schema) if found else Name("unknown")

    def column_type(self, schema: str, column: Column, nullable: bool | None = None) -> TsType:
        is_nullable = column.is_nullable if nullable is None else nullable
        return _nullable(self.ts_type(schema, column.format, column.type_schema), is_nullable)

    # --- relations --------------------------------------------------------------------------

    def row(self, schema: str, rel: Relation) -> list[Prop]:
        return [Prop(c.name, self.column_type(schema, c)) for c in self.columns.get(rel.oid, [])]

    def computed_fields(self, schema: str, rel: Relation) -> list[Prop]:
        out = []
        for fn, args in self.by_schema[schema].functions:
            if len(args) == 1 and args[0].type_id in self.relation_types:
                is_field = self.relation_types[args[0].type_id].relation_id == rel.oid
            else:
                is_field = fn.argument_types == rel.name
            if is_field:
                out.append(Prop(fn.name, _nullable(self.return_type(schema, fn), True)))
        return out

    def table(self, schema: str, rel: Relation) -> Object:
        insert, update = [], []
        for c in self.columns.get(rel.oid, []):
            if c.identity == "ALWAYS" or c.is_generated:
                insert.append(Prop(c.name, Name("never"), optional=True))
                update.append(Prop(c.name, Name("never"), optional=True))
                continue
            optional = c.is_nullable or c.identity is not None or c.has_default
            insert.append(Prop(c.name, self.column_type(schema, c), optional=optional))
            update.append(Prop(c.name, self.column_type(schema, c), optional=True))
        return Object([
            Prop("Row", Object([*self.row(schema, rel), *self.computed_fields(schema, rel)])),
            Prop("Insert", Object(insert)),
            Prop("Update", Object(update)),
            Prop("Relationships", self.relationships_type(rel)),
        ])

    def view(self, schema: str, rel: Relation) -> Object:
        members = [Prop("Row", Object([*self.row(schema, rel), *self.computed_fields(schema, rel)]))]

        def writable() -> Object:
            return Object([
                Prop(c.name, self.column_type(schema, c, nullable=True) if c.is_updatable else Name("never"),
                     optional=True)
                for c in self.columns.get(rel.oid, [])
            ])

        if rel.insert_enabled:
            members.append(Prop("Insert", writable()))
        if rel.update_enabled:
            members.append(Prop("Update", writable()))
        members.append(Prop("Relationships", self.relationships_type(rel)))
        return Object(members)

    def relationships_type(self, rel: Relation) -> Tuple:
        return Tuple([Object([
            Prop("foreignKeyName", Literal(r.foreign_key_name)),
            Prop("columns", Tuple([Literal(c) for c in r.columns])),
            Prop("isOneToOne", _bool(r.is_one_to_one)),
            Prop("referencedRelation", Literal(r.referenced_relation)),
            Prop("referencedColumns", Tuple([Literal(c) for c in r.referenced_columns])),
        ]) for r in self._relationships(rel)])

    # --- functions --------------------------------------------------------------------------

    def return_type(self, schema: str, fn: Function) -> TsType:
        table_args = [a for a in fn.args if a.mode == "table"]
        if table_args:
            return Object([Prop(a.name, self.type_of_oid(schema, a.type_id)) for a in table_args])
        objects = self.by_schema[schema]
        relation = next((r for r in objects.tables + objects.views if r.oid == fn.return_type_relation_id), None)
        if relation is not None:
            return Object(self.row(schema, relation))
        return self.type_of_oid(schema, fn.return_type_id)

    def setof_options(self, fn: Function) -> tuple[TsType | None, bool]:
        """SetofOptions (what rows come back, for select() on an rpc), and whether the
        return type is an array."""
        returned = self._returned_relation_name(fn)
        many = fn.prorows is not None and fn.prorows > 1
        options: TsType | None = None

        def setof(source: str, one: bool, setof: bool) -> Object:
            return Object([Prop("from", Literal(source)), Prop("to", Literal(returned or "")),
                           Prop("isOneToOne", _bool(one)), Prop("isSetofReturn", _bool(setof))])

        if returned:
            options = setof("*", not many, fn.returns_set)
        if len(fn.args) == 1 and fn.args[0].type_id in self.relation_types and returned:
            source = self.types_by_oid[fn.args[0].type_id].format
            returns_rows = fn.returns_set and fn.return_type_relation_id is not None
            options = setof(source, not many, True) if returns_rows else setof(source, True, False)
        collapsible = not many and returned is not None
        return options, fn.returns_set and not collapsible

    def _args(self, schema: str, args: list[Arg]) -> TsType:
        if not args:
            return Name("Record<PropertyKey, never>")
        return Object([Prop(a.name, self.type_of_oid(schema, a.type_id), optional=a.has_default) for a in args],
                      expanded=False)

    def _conflict(self, schema: str, group: list[tuple[Function, list[Arg]]], fn: Function,
                  args: list[Arg]) -> str | None:
        """PostgREST cannot choose between these overloads: say so in the type."""
        if len(group) <= 1:
            return None
        others = [(f, a) for f, a in group if f is not fn]
        if not args:
            clash = [(f, a) for f, a in others if len(a) == 1 and not a[0].name and a[0].has_default]
            if clash:
                ret = self.types_by_oid.get(clash[0][0].return_type_id)
                return (f"Could not choose the best candidate function between: {schema}.{fn.name}(), "
                        f"{schema}.{fn.name}( => {ret.name if ret else 'unknown'}). Try renaming the parameters "
                        "or the function itself in the database so function overloading can be resolved")
        if len(args) == 1 and args[0].name:
            clash = [(f, a) for f, a in others
                     if len(a) == 1 and a[0].name == args[0].name and a[0].type_id != args[0].type_id]
            if clash:
                listed = sorted([(fn, args), *clash], key=lambda p: p[1][0].type_id if p[1] else 0)
                signatures = ", ".join(
                    f"{schema}.{fn.name}(" + ", ".join(
                        f"{a.name} => {self._type_name(a.type_id)}" for a in pair[1]) + ")"
                    for pair in listed)
                return (f"Could not choose the best candidate function between: {signatures}. Try renaming "
                        "the parameters or the function itself in the database so function overloading can be resolved")
        return None

    def _type_name(self, oid: int) -> str:
        found = self.types_by_oid.get(oid)
        return found.name if found else "unknown"

    def signature(self, schema: str, group: list[tuple[Function, list[Arg]]], fn: Function,
                  args: list[Arg]) -> Object:
        returns = self.return_type(schema, fn)
        conflict = self._conflict(schema, group, fn, args)
        if conflict is None and len(args) == 1 and not args[0].name and args[0].type_id in self.relation_types \
                and not self._returned_relation_name(fn):
            conflict = (f"the function {schema}.{fn.name} with parameter or with a single unnamed json/jsonb "
                        "parameter, but no matches were found in the schema cache")
        if conflict is not None:
            returns = Intersection([Object([Prop("error", Name("true"))], expanded=False), Literal(conflict)])
        options, is_array = self.setof_options(fn)
        members = [Prop("Args", self._args(schema, args)),
                   Prop("Returns", _append_array(returns) if is_array else returns)]
        if options is not None:
            members.append(Prop("SetofOptions", options))
        return Object(members, expanded=False)

    def functions(self, schema: str) -> Object:
        grouped: dict[str, list[tuple[Function, list[Arg]]]] = {}
        for fn, args in self.by_schema[schema].functions:
            grouped.setdefault(fn.name, []).append((fn, args))
        members: list[Prop | str] = []
        for name in _object_key_order(list(grouped)):
            group = sort_by(grouped[name], lambda p: p[0].argument_types, lambda p: p[0].return_type)
            signatures: list[TsType] = [self.signature(schema, group, fn, args) for fn, args in group]
            members.append(Prop(name, signatures[0] if len(signatures) == 1 else Union_(signatures)))
        return Object(members or [NEVER])

    # --- the file ---------------------------------------------------------------------------

    def schema_type(self, schema: str) -> Object:
        objects = self.by_schema[schema]
        tables = [Prop(t.name, self.table(schema, t)) for t in objects.tables]
        views = [Prop(v.name, self.view(schema, v)) for v in objects.views]
        enums = [Prop(e.name, _union(*(Literal(v) for v in e.enums))) for e in objects.enums]
        composites = [Prop(c.name, Object([
            Prop(attr, _nullable(self.type_of_oid(schema, oid), True) if oid in self.types_by_oid else Name("unknown"))
            for attr, oid in c.attributes])) for c in objects.composites]
        return Object([
            Prop("Tables", Object(tables or [NEVER])),
            Prop("Views", Object(views or [NEVER])),
            Prop("Functions", self.functions(schema)),
            Prop("Enums", Object(enums or [NEVER])),
            Prop("CompositeTypes", Object(composites or [NEVER])),
        ])

    def database(self, postgrest_version: str | None) -> Object:
        members: list[Prop | str] = []
        comments = {}
        if postgrest_version:
            members.append(Prop("__InternalSupabase", Object([Prop("PostgrestVersion", Literal(postgrest_version))])))
            comments[0] = INTERNAL_COMMENT
        members.extend(Prop(s, self.schema_type(s)) for s in self.schemas)
        return Object(members, comments=comments)

    def constants(self) -> ObjectValue:
        return ObjectValue([
            (s, ObjectValue([("Enums", ObjectValue([(e.name, list(e.enums)) for e in self.by_schema[s].enums]))]))
            for s in self.schemas
        ])


def _json_list(values: list[str]) -> str:
    """`JSON.stringify` of a list of strings (upstream sorts relationships by it)."""
    return json.dumps(values, ensure_ascii=False, separators=(",", ":"))


def _object_key_order(names: list[str]) -> list[str]:
    """A JavaScript object lists integer-like keys first, in numeric order."""
    def is_index(name: str) -> bool:
        return re.fullmatch(r"0|[1-9][0-9]*", name) is not None and int(name) < 2**32 - 1

    return sorted((n for n in names if is_index(n)), key=int) + [n for n in names if not is_index(n)]


def generate(md: Metadata, postgrest_version: str | None = POSTGREST_VERSION) -> str:
    gen = _Generator(md)
    database: Doc = ["export type Database = ", to_doc(gen.database(postgrest_version))]
    constants: Doc = ["export const Constants = ", value_doc(gen.constants()), " as const"]
    return "\n".join([JSON_TYPE, render(database) + "\n", HELPER_TYPES, render(constants) + "\n"])

