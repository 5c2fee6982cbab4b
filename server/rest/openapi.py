"""The OpenAPI (Swagger 2.0) document PostgREST serves at the root of the API."""

from __future__ import annotations

from typing import Any

import orjson

from server.core.config import Settings
from server.rest.schema_cache import Column, SchemaCache, Table

_FORMATS = {"int2": ("integer", "smallint"), "int4": ("integer", "integer"), "int8": ("integer", "bigint"),
            "float4": ("number", "real"), "float8": ("number", "double precision"), "numeric": ("number", "numeric"),
            "bool": ("boolean", "boolean"), "json": ("any", "json"), "jsonb": ("any", "jsonb")}


def _property(col: Column) -> dict[str, Any]:
    kind, fmt = _FORMATS.get(col.base_type, ("string", col.type))
    prop: dict[str, Any] = {"format": col.type if kind == "string" else fmt}
    if col.base_type.startswith("_"):
        prop = {"format": col.type, "type": "array", "items": {"type": "string"}}
    elif kind != "any":
        prop["type"] = kind
    if col.default is not None:
        prop["default"] = col.default
    if col.enum:
        prop["enum"] = col.enum
    if col.description:
        prop["description"] = col.description
    return prop


def _definition(table: Table) -> dict[str, Any]:
    cols = sorted(table.columns.values(), key=lambda c: c.position)
    props = {}
    for c in cols:
        prop = _property(c)
        if c.name in table.pk:
            prop["description"] = ((c.description + "\n\n") if c.description else "") + "Note:\nThis is a Primary Key.<pk/>"
        props[c.name] = prop
    out: dict[str, Any] = {"properties": props, "type": "object"}
    required = [c.name for c in cols if not c.nullable and c.default is None and not c.identity and not c.generated]
    if required:
        out["required"] = required
    if table.description:
        out["description"] = table.description
    return out


def document(cache: SchemaCache, schema: str, settings: Settings) -> bytes:
    tables = sorted((t for t in cache.tables.values() if t.schema == schema), key=lambda t: t.name)
    paths: dict[str, Any] = {"/": {"get": {"produces": ["application/openapi+json", "application/json"],
                                          "responses": {"200": {"description": "OK"}}, "summary": "OpenAPI description (this document)",
                                          "tags": ["Introspection"]}}}
    for t in tables:
        ops: dict[str, Any] = {"get": {"parameters": [{"$ref": f"#/parameters/rowFilter.{t.name}.{c}"} for c in t.columns]
                                       + [{"$ref": "#/parameters/select"}, {"$ref": "#/parameters/order"},
                                          {"$ref": "#/parameters/range"}, {"$ref": "#/parameters/rangeUnit"},
                                          {"$ref": "#/parameters/offset"}, {"$ref": "#/parameters/limit"},
                                          {"$ref": "#/parameters/preferCount"}],
                                       "responses": {"200": {"description": "OK", "schema": {"items": {"$ref": f"#/definitions/{t.name}"}, "type": "array"}},
                                                     "206": {"description": "Partial Content"}},
                                       "tags": [t.name]}}
        if t.insertable:
            ops["post"] = {"parameters": [{"$ref": f"#/parameters/body.{t.name}"}, {"$ref": "#/parameters/select"},
                                          {"$ref": "#/parameters/preferPost"}],
                           "responses": {"201": {"description": "Created"}}, "tags": [t.name]}
        if t.updatable:
            ops["patch"] = {"parameters": [{"$ref": f"#/parameters/rowFilter.{t.name}.{c}"} for c in t.columns]
                            + [{"$ref": f"#/parameters/body.{t.name}"}, {"$ref": "#/parameters/preferReturn"}],
                            "responses": {"204": {"description": "No Content"}}, "tags": [t.name]}
        if t.deletable:
            ops["delete"] = {"parameters": [{"$ref": f"#/parameters/rowFilter.{t.name}.{c}"} for c in t.columns]
                             + [{"$ref": "#/parameters/preferReturn"}],
                             "responses": {"204": {"description": "No Content"}}, "tags": [t.name]}
        if t.description:
            ops["get"]["summary"] = t.description
        paths[f"/{t.name}"] = ops
    for (s, name), fns in sorted(cache.functions.items()):
        callable_fns = [f for f in fns if f.callable]  # /rpc ignores the others (findProc)
        if s != schema or not callable_fns:
            continue
        fn = callable_fns[0]
        props = {p.name: {"format": p.type, "type": "string"} for p in fn.params if p.name}
        body_schema: dict[str, Any] = {"properties": props, "type": "object"}
        required = [p.name for p in fn.params if p.name and not p.has_default]
        if required:
            body_schema["required"] = required
        entry: dict[str, Any] = {"post": {"parameters": [{"in": "body", "name": "args", "required": True, "schema": body_schema},
                                                         {"$ref": "#/parameters/preferParams"}],
                                          "produces": ["application/json", "application/vnd.pgrst.object+json"],
                                          "responses": {"200": {"description": "OK"}}, "tags": ["(rpc) " + name]}}
        if fn.volatility != "v":
            entry["get"] = {"parameters": [{"format": p.type, "in": "query", "name": p.name, "required": not p.has_default, "type": "string"}
                                           for p in fn.params if p.name],
                            "produces": ["application/json", "application/vnd.pgrst.object+json"],
                            "responses": {"200": {"description": "OK"}}, "tags": ["(rpc) " + name]}
        if fn.description:
            for op in entry.values():
                op["summary"] = fn.description
        paths[f"/rpc/{name}"] = entry
    parameters: dict[str, Any] = {
        "preferParams": {"name": "Prefer", "description": "Preference", "required": False, "enum": ["params=single-object"], "in": "header", "type": "string"},
        "preferReturn": {"name": "Prefer", "description": "Preference", "required": False, "enum": ["return=representation", "return=minimal", "return=none"], "in": "header", "type": "string"},
        "preferCount": {"name": "Prefer", "description": "Preference", "required": False, "enum": ["count=none"], "in": "header", "type": "string"},
        "preferPost": {"name": "Prefer", "description": "Preference", "required": False, "enum": ["return=representation", "return=minimal", "return=none", "resolution=ignore-duplicates", "resolution=merge-duplicates"], "in": "header", "type": "string"},
        "select": {"name": "select", "description": "Filtering Columns", "required": False, "in": "query", "type": "string"},
        "on_conflict": {"name": "on_conflict", "description": "On Conflict", "required": False, "in": "query", "type": "string"},
        "order": {"name": "order", "description": "Ordering", "required": False, "in": "query", "type": "string"},
        "range": {"name": "Range", "description": "Limiting and Pagination", "required": False, "in": "header", "type": "string"},
        "rangeUnit": {"name": "Range-Unit", "description": "Limiting and Pagination", "required": False, "default": "items", "in": "header", "type": "string"},
        "offset": {"name": "offset", "description": "Limiting and Pagination", "required": False, "in": "query", "type": "string"},
        "limit": {"name": "limit", "description": "Limiting and Pagination", "required": False, "in": "query", "type": "string"},
    }
    for t in tables:
        parameters[f"body.{t.name}"] = {"name": t.name, "description": t.name, "required": False, "in": "body",
                                        "schema": {"$ref": f"#/definitions/{t.name}"}}
        for c in t.columns.values():
            parameters[f"rowFilter.{t.name}.{c.name}"] = {"name": c.name, "required": False, "format": c.type,
                                                           "in": "query", "type": "string"}
    url = settings.api_url
    host = url.split("://", 1)[-1]
    doc = {
        "swagger": "2.0",
        "info": {"description": "", "title": "standard public schema", "version": "12.2.0"},
        "host": host,
        "basePath": "/",
        "schemes": [url.split("://", 1)[0]],
        "consumes": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped",
                     "application/vnd.pgrst.object+json", "text/csv"],
        "produces": ["application/json", "application/vnd.pgrst.object+json;nulls=stripped",
                     "application/vnd.pgrst.object+json", "text/csv"],
        "paths": paths,
        "definitions": {t.name: _definition(t) for t in tables},
        "parameters": parameters,
        "externalDocs": {"description": "PostgREST Documentation", "url": "https://postgrest.org/en/v12/references/api.html"},
    }
    return orjson.dumps(doc)
