"""/rest/v1: the request pipeline, as PostgREST's App.hs.

ApiRequest (parse, no DB) -> plan against the schema cache -> SQL (psycopg.sql) -> one
pipelined transaction (role + claims + statement) -> response. Served as a bare ASGI app:
this is the hottest path of the server.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

import orjson
import psycopg
from psycopg import pq, sql
from psycopg_pool import PoolTimeout

from server.auth.jwt import JwtError, bearer_token
from server.db.health import DatabaseUnavailable, is_unavailable
from server.db.pool import ACQUIRE_TIMEOUT
from server.db.request_context import RequestContext, context_sql
from server.rest import errors, flight, openapi, plan
from server.rest import sql as q
from server.rest.body import dump as dump_body
from server.rest.body import parse as parse_body
from server.rest.body import read_body
from server.rest.caches import (
    ANONYMOUS,
    NO_BODY,
    CachedCall,
    CachedRead,
    CallCache,
    PlanCache,
    TokenCache,
    VerifiedToken,
    call_key,
    read_key,
)
from server.rest.pool import RestPool
from server.rest.request import MAX_BIGINT, ColumnItem, Field, MediaType, parse_accept, parse_prefer, parse_query, parse_range
from server.rest.response import CORS_HEADERS, content_range, guc_overrides, range_status, shape_body
from server.rest.schema_cache import SchemaCache, SchemaCacheHolder, Table

if TYPE_CHECKING:
    from server.context import AppContext

log = logging.getLogger("supalite.rest")

# The caller's context and the schema's search_path (PostgREST's db-extra-search-path).
CONTEXT_SQL = context_sql("search_path")

Row = tuple[Any, ...]

# The fixed statements of every transaction, prepared once per connection.
BEGIN_READ = flight.to_statement(b"BEGIN ISOLATION LEVEL READ COMMITTED READ ONLY", prepare=True)
BEGIN_WRITE = flight.to_statement(b"BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE", prepare=True)
COMMIT = flight.to_statement(b"COMMIT", prepare=True)
ROLLBACK = flight.to_statement(b"ROLLBACK", prepare=True)
CONTEXT = flight.to_statement(CONTEXT_SQL, prepare=True)


class Answer:
    """A finished response: status, headers, body bytes."""

    __slots__ = ("body", "headers", "status")

    def __init__(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.body = body
        self.headers = headers or {}


class RestService:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.settings = ctx.settings
        self.schemas = ctx.settings.db_schemas
        self.cache_holder = SchemaCacheHolder(ctx, self.schemas)
        self._search_paths = {
            s: ", ".join(_quote_ident(x) for x in dict.fromkeys((s, *ctx.settings.db_extra_search_path)))
            for s in self.schemas
        }
        self.pool = RestPool(ctx.api_pool.conninfo, ctx.settings.db_pool_size, ACQUIRE_TIMEOUT, ctx.health)
        self.max_body = ctx.settings.rest_max_body_bytes
        self.tokens = TokenCache(self._verify)
        self.reads = PlanCache()
        self.calls = CallCache()
        self.cache_holder.on_reload.append(self._drop_plans)
        ctx.on_startup.append(self.cache_holder.start)
        ctx.on_startup.append(self.pool.open)
        ctx.on_shutdown.append(self.cache_holder.stop)
        ctx.on_shutdown.append(self.pool.close)

    def _drop_plans(self, _cache: SchemaCache) -> None:
        """Plans are made against one schema cache: a reload makes every one of them stale."""
        self.reads.clear()
        self.calls.clear()

    @property
    def cache(self) -> SchemaCache:
        if self.cache_holder.cache is None:
            raise errors.ApiError(503, "PGRST002", "Could not query the database for the schema cache. Retrying.")
        return self.cache_holder.cache

    # -- ASGI -------------------------------------------------------------------------------

    async def __call__(self, scope: dict, receive: Callable, send: Callable) -> None:
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        method = scope["method"]
        if method == "OPTIONS":
            answer = Answer(200, b"", {
                "access-control-allow-origin": "*",
                "access-control-allow-methods": "GET, POST, PATCH, PUT, DELETE, OPTIONS, HEAD",
                "access-control-allow-headers": headers.get("access-control-request-headers", "*"),
                "access-control-max-age": "86400",
            })
        else:
            path = scope["path"][len(scope.get("root_path", "")):]
            query = scope.get("query_string", b"").decode("latin-1")
            try:
                # who asks is known before any of the body is read (an invalid token costs no upload)
                token = self._token(headers)
                body = b""
                if method not in ("GET", "HEAD", "DELETE"):
                    body = await read_body(receive, headers, self.max_body)
                answer = await self.handle(method, path, query, headers, body, token)
            except errors.ApiError as err:
                answer = Answer(err.status, err.body(), {"content-type": "application/json; charset=utf-8", **err.headers})
            except Exception as exc:  # never a traceback to the client
                if is_unavailable(exc):
                    err = errors.connection_error()
                else:
                    log.exception("rest: unexpected error on %s %s", method, scope["path"])
                    err = errors.ApiError(500, "PGRSTX00", "Internal server error")
                answer = Answer(err.status, err.body(), {"content-type": "application/json; charset=utf-8"})
            if method == "HEAD":
                answer.body = b""
        out_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in {**CORS_HEADERS, **answer.headers}.items()]
        out_headers.append((b"content-length", str(len(answer.body)).encode()))
        await send({"type": "http.response.start", "status": answer.status, "headers": out_headers})
        await send({"type": "http.response.body", "body": answer.body})

    # -- pipeline ---------------------------------------------------------------------------

    async def handle(self, method: str, path: str, query: str, headers: dict[str, str], body: bytes,
                     token: VerifiedToken) -> Answer:
        role = token.role
        if method == "GET" or method == "HEAD":
            hit = self.reads.get(read_key(role, path, query, headers))
            if hit is not None:
                ctx = RequestContext(role, token.claims, method, "/" + path.lstrip("/"), headers)
                row = await self._run(ctx, hit.schema, hit.statement, hit.values, read_only=True)
                return self._read_answer(row, hit.media, hit.offset, hit.applied)
        ckey = call_key(role, method, path, query, headers)
        if self.calls.knows(ckey):
            answer = await self._cached_call(ckey, token, method, path, headers, body)
            if answer is not None:
                return answer
        claims = token.claims
        if method not in ("GET", "HEAD", "POST", "PATCH", "PUT", "DELETE"):
            raise errors.unsupported_method(method)
        schema = self._schema(method, headers)
        parts = [unquote(p) for p in path.strip("/").split("/")] if path.strip("/") else []
        ctx = RequestContext(role, claims, method, "/" + path.lstrip("/"), headers)
        if not parts:
            if method not in ("GET", "HEAD"):
                raise errors.unsupported_method(method)
            return Answer(200, openapi.document(self.cache, schema, self.settings),
                          {"content-type": "application/openapi+json; charset=utf-8"})
        if len(parts) == 2 and parts[0] == "rpc":
            return await self._rpc(ctx, schema, parts[1], method, query, headers, body, ckey)
        if len(parts) != 1:
            raise errors.invalid_resource_path()
        return await self._table(ctx, schema, parts[0], method, query, headers, body,
                                 read_key(role, path, query, headers), ckey)

    async def _cached_call(self, key: Hashable, token: VerifiedToken, method: str, path: str,
                           headers: dict[str, str], body: bytes) -> Answer | None:
        """A write or RPC planned before for this key and body shape; None when not cached.

        The body is parsed here only because this key was planned before: every check the
        full path makes ahead of parsing the body passed then, and gives the same answer now.
        """
        payload: Any = None
        if method in ("POST", "PATCH", "PUT"):
            if not body.strip():
                return None
            payload, shape = await parse_body(headers, body)
            if shape is None:
                return None
        else:
            shape = NO_BODY
        hit = self.calls.get(key, shape)
        if hit is None:
            return None
        values = hit.values
        if hit.body_slot >= 0:
            values = list(values)
            values[hit.body_slot] = bytes(body) if hit.body_mode == "raw" else dump_body(payload).encode()
        ctx = RequestContext(token.role, token.claims, method, "/" + path.lstrip("/"), headers)
        row = await self._run(ctx, hit.schema, hit.statement, values, read_only=hit.read_only, check=hit.check)
        return hit.respond(row)

    def _remember(self, key: Hashable | None, shape: Hashable | None, schema: str, stmt: sql.Composable,
                  params: q.Params, body_text: str | None, body_mode: str | None, read_only: bool,
                  check: Callable[[Row], bool] | None, respond: Callable[[Row], Answer]) -> tuple[flight.Statement, list]:
        """Compose once; keep the plan for the next request with the same key and body shape."""
        prepared = flight.to_statement(stmt.as_bytes(None), prepare=True)
        values = prepared.bind(params.values)
        slot = -1
        if body_text is not None:
            # the body's slot, found by identity: the very string bound while composing
            slots = [i for i, n in enumerate(prepared.names) if params.values[n] is body_text]
            slot = slots[0] if len(slots) == 1 else -2
        if key is not None and shape is not None and slot != -2:
            self.calls.put(key, shape, CachedCall(schema, prepared, values, slot, body_mode, read_only, check, respond))
        return prepared, values

    def _token(self, headers: dict[str, str]) -> VerifiedToken:
        """The caller's verified claims: Bearer token, else apikey, else anonymous."""
        token = bearer_token(headers)
        if token is None:
            return ANONYMOUS
        try:
            return self.tokens.get(token)
        except JwtError as exc:
            raise errors.jwt_error(str(exc)) from None

    def _verify(self, token: str) -> dict[str, Any]:
        return self.ctx.keys.decode(token)

    def _schema(self, method: str, headers: dict[str, str]) -> str:
        header = headers.get("accept-profile" if method in ("GET", "HEAD") else "content-profile")
        if header is None:
            return self.schemas[0]
        if header not in self.schemas:
            raise errors.unacceptable_schema(header, self.schemas)
        return header

    def _media(self, headers: dict[str, str]) -> MediaType:
        return parse_accept(headers.get("accept"), self.settings.db_plan_enabled)

    def _max_rows(self, limit: int | None) -> int | None:
        cap = self.settings.db_max_rows
        if cap is None:
            return limit
        return cap if limit is None else min(limit, cap)

    def _tx_rollback(self, prefer_tx: str | None) -> tuple[bool, bool]:
        """(roll back at the end, preference applied)."""
        end = self.settings.db_tx_end
        if end.endswith("allow-override") and prefer_tx:
            return prefer_tx == "rollback", True
        return end.startswith("rollback"), False

    # -- tables -------------------------------------------------------------------------------

    async def _table(self, ctx: RequestContext, schema: str, name: str, method: str, query: str,
                     headers: dict[str, str], body: bytes, key: Hashable, ckey: Hashable) -> Answer:
        media = self._media(headers)
        prefer = parse_prefer(headers.get("prefer", "").split("\n") if headers.get("prefer") else [])
        qp = parse_query(query)
        table = plan.find_table(self.cache, schema, name)
        aliases = plan.Aliases()
        applied: list[str] = []
        params = q.Params()
        rollback, tx_applied = self._tx_rollback(prefer.tx)
        if tx_applied:
            applied.append(f"tx={prefer.tx}")

        if method in ("GET", "HEAD"):
            node = plan.build_read_tree(self.cache, table, qp, aliases, self.settings.db_aggregates_enabled)
            rng = parse_range(headers.get("range")) if headers.get("range-unit", "items") == "items" else None
            offset = qp.offset.get((), 0)
            limit = qp.limit.get(())
            if rng is not None:
                r_off, r_lim = rng
                offset = max(offset, r_off) if () not in qp.offset else min(offset + r_off, MAX_BIGINT)
                limit = r_lim if limit is None else (min(limit, r_lim) if r_lim is not None else limit)
            limit = self._max_rows(limit)
            source = q.table_source(table, node.alias)
            inner = q.root_query(node, source, params, limit, offset)
            total_sql = None
            if prefer.count in ("exact", "planned", "estimated"):
                total_sql = q.count_expr(q.root_query(node, source, params, None, None, for_count=True))
                applied.append(f"count={prefer.count}")
            stmt = q.wrap(inner, "stripped" if media.nulls_stripped else "array", total_sql)
            if media.kind == "plan":
                return await self._explain(ctx, schema, stmt, params, media)
            # cached by URL and headers (see caches.py); later hits skip parsing and planning
            prepared = flight.to_statement(stmt.as_bytes(None), prepare=True)
            entry = CachedRead(schema, prepared, prepared.bind(params.values), media, offset, tuple(applied))
            self.reads.put(key, entry)
            row = await self._run(ctx, schema, prepared, entry.values, read_only=True)
            return self._read_answer(row, media, offset, applied)

        if method in ("POST", "PATCH", "PUT", "DELETE"):
            return await self._write(ctx, schema, table, method, qp, prefer, media, headers, body, aliases, params,
                                     applied, rollback, ckey)
        raise errors.unsupported_method(method)

    def _read_answer(self, row: Row, media: MediaType, offset: int, applied: Sequence[str]) -> Answer:
        total, page_total, body_text, h_guc, s_guc = row
        status = range_status(offset, page_total, total)
        out = shape_body(body_text, media, page_total)
        answer = Answer(status, out, {"content-type": media.content_type,
                                      "content-range": content_range(offset, page_total, total)})
        return self._finish(answer, h_guc, s_guc, list(applied))

    async def _write(self, ctx: RequestContext, schema: str, table: Table, method: str, qp, prefer, media: MediaType,
                     headers: dict[str, str], body: bytes, aliases: plan.Aliases, params: q.Params,
                     applied: list[str], rollback: bool, ckey: Hashable) -> Answer:
        returning = prefer.return_ == "representation"
        if prefer.return_:
            applied.append(f"return={prefer.return_}")
        select = qp.select if returning else [ColumnItem(Field("*"))]
        node = plan.build_read_tree(self.cache, table, qp, aliases, self.settings.db_aggregates_enabled, select)
        payload: Any = None
        text: str | None = None
        body_mode: str | None = None
        shape: Hashable | None = NO_BODY
        if method != "DELETE":
            payload, shape = await parse_body(headers, body)
        if method in ("POST", "PUT"):
            if payload is None or (not isinstance(payload, (dict, list))):
                raise errors.invalid_body("Empty or invalid json")
            rows = payload if isinstance(payload, list) else [payload]
            if any(not isinstance(r, dict) for r in rows):
                raise errors.invalid_body("All object keys must match")
            if qp.columns is not None:
                columns = qp.columns
            else:
                columns = list(rows[0].keys()) if rows else []
                keyset = set(columns)
                if any(set(r.keys()) != keyset for r in rows[1:]):
                    raise errors.invalid_body("All object keys must match")
            resolution = prefer.resolution
            on_conflict = qp.on_conflict
            if method == "PUT":
                self._check_put(table, node, qp, rows)
                resolution = "merge-duplicates"
                on_conflict = table.pk
            elif resolution:
                applied.append(f"resolution={resolution}")
            if prefer.missing == "default":
                applied.append("missing=default")
            from_json = headers.get("content-type", "application/json").startswith(("application/json", "application/vnd.pgrst"))
            body_mode = "raw" if from_json and body.strip() else "dump"
            text = body.decode("utf-8") if body_mode == "raw" else dump_body(payload)
            if not columns:
                shape = None  # planned from the body's text ({} is DEFAULT VALUES)
            stmt = q.insert_sql(table, node.alias, columns, text, params, prefer.missing == "default", on_conflict,
                                resolution, returning=True)
            status = 201 if method == "POST" else 200
        elif method == "PATCH":
            if payload is None:
                payload = {}
            if not isinstance(payload, dict):
                raise errors.invalid_body("Empty or invalid json")
            columns = qp.columns if qp.columns is not None else list(payload.keys())
            if not columns:
                return self._finish(Answer(204 if not returning else 200, b"[]" if returning else b"",
                                           {"content-range": "*/*", **({"content-type": media.content_type} if returning else {})}),
                                    None, None, applied)
            text, body_mode = dump_body(payload), "dump"
            stmt = q.update_sql(table, node, columns, text, params, returning=True)
            status = 200
        else:
            stmt = q.delete_sql(table, node, params, returning=True)
            status = 200
        cte = sql.SQL("{} AS ({})").format(sql.Identifier(node.alias), stmt)
        if returning:
            # the returned rows, embedded like a read (filters already applied by the statement)
            read_node = plan.ReadNode(node.table, node.alias, node.key, node.columns, node.children, order=node.order,
                                      star=node.star)
            inner = q.root_query(read_node, sql.Identifier(node.alias), params, None, None)
        else:
            inner = sql.SQL("SELECT 1 FROM {}").format(sql.Identifier(node.alias))
        total_sql = None
        if prefer.count:
            applied.append(f"count={prefer.count}")
            total_sql = sql.SQL("(SELECT pg_catalog.count(*) FROM {})").format(sql.Identifier(node.alias))
        full = q.wrap(inner, "stripped" if media.nulls_stripped else "array", total_sql, [cte])
        if prefer.max_affected is not None:
            applied.append(f"max-affected={prefer.max_affected}")

        def check(row: Row) -> bool:
            page_total = row[1]
            if prefer.max_affected is not None and prefer.handling == "strict" and page_total > prefer.max_affected:
                raise errors.max_affected_violation(page_total)
            if returning and media.kind == "object" and page_total != 1:
                raise errors.singularity_error(page_total)
            return not rollback

        if media.kind == "plan":
            return await self._explain(ctx, schema, full, params, media)
        # commit in the same flight unless the result may call for a rollback
        may_reject = rollback or (prefer.max_affected is not None and prefer.handling == "strict") or (
            returning and media.kind == "object")

        def respond(row: Row) -> Answer:
            return self._write_answer(row, method, table, prefer, media, returning, status, applied)

        stmt_done, values = self._remember(ckey if method != "PUT" else None, shape, schema, full, params, text,
                                           body_mode, False, check if may_reject else None, respond)
        row = await self._run(ctx, schema, stmt_done, values, read_only=False, check=check if may_reject else None)
        return respond(row)

    def _write_answer(self, row: Row, method: str, table: Table, prefer, media: MediaType, returning: bool,
                      status: int, applied: list[str]) -> Answer:
        total, page_total, body_text, h_guc, s_guc = row
        out_headers = {"content-range": content_range(0, page_total, total) if method != "POST" else f"*/{'*' if total is None else total}"}
        if returning:
            out_headers["content-type"] = media.content_type
            answer = Answer(status, shape_body(body_text, media, page_total), out_headers)
        else:
            if method == "POST" and prefer.return_ == "headers-only" and table.pk and page_total == 1:
                first = orjson.loads(body_text)[0]
                out_headers["location"] = f"/{table.name}?" + "&".join(f"{k}=eq.{first.get(k)}" for k in table.pk)
            answer = Answer(201 if method == "POST" else 204, b"", out_headers)
        return self._finish(answer, h_guc, s_guc, applied)

    def _check_put(self, table: Table, node: plan.ReadNode, qp, rows: list[dict]) -> None:
        if qp.limit or qp.offset:
            raise errors.ApiError(400, "PGRST114", "limit/offset querystring parameters are not allowed for PUT")
        eqs = {f.field.name: f.value for f in node.filters if f.op == "eq" and not f.negate and not f.field.json_path}
        if not table.pk or set(eqs) != set(table.pk) or len(node.filters) != len(table.pk) or node.logic:
            raise errors.ApiError(405, "PGRST105", "Filters must include all and only primary key columns with 'eq' operators")
        if len(rows) != 1 or any(str(rows[0].get(k)) != str(v) for k, v in eqs.items()):
            raise errors.ApiError(400, "PGRST115", "Payload values do not match URL in primary key column(s)")

    # -- rpc ----------------------------------------------------------------------------------

    async def _rpc(self, ctx: RequestContext, schema: str, name: str, method: str, query: str,
                   headers: dict[str, str], body: bytes, ckey: Hashable) -> Answer:
        if method not in ("GET", "HEAD", "POST"):
            raise errors.ApiError(405, "PGRST101", f"Cannot use the {method} method on RPC")
        media = self._media(headers)
        prefer = parse_prefer(headers.get("prefer", "").split("\n") if headers.get("prefer") else [])
        read = method in ("GET", "HEAD")
        qp = parse_query(query, is_rpc_read=read)
        single_json: str | None = None
        args: dict[str, Any]
        shape: Hashable | None = NO_BODY
        if read:
            args = {k: (v[0] if len(v) == 1 else v) for k, v in qp.rpc_args.items()}
        else:
            payload, shape = await parse_body(headers, body) if body.strip() else ({}, None)
            if (isinstance(payload, list) and qp.columns is None) or not isinstance(payload, dict):
                args = {}
                single_json = body.decode("utf-8", "replace")
            else:
                args = payload
                if prefer.params == "single-object":
                    single_json = body.decode("utf-8", "replace") or "{}"
        arg_names = list(args.keys()) if single_json is None else []
        if single_json is not None and prefer.params != "single-object":
            fn = plan.find_function(self.cache, schema, name, [], single_json=True)
        else:
            try:
                fn = plan.find_function(self.cache, schema, name, arg_names, single_json=not read)
            except errors.ApiError as first_error:
                if read:
                    raise
                try:
                    fn = plan.find_function(self.cache, schema, name, [], single_json=True)
                except errors.ApiError:
                    raise first_error from None
                if not (len(fn.params) == 1 and fn.params[0].name == ""):
                    raise first_error from None
                single_json = body.decode("utf-8", "replace") or "{}"
            only_param = fn.params[0] if len(fn.params) == 1 else None
            if single_json is None and only_param and only_param.name == "" and only_param.type in ("json", "jsonb") and not read:
                single_json = body.decode("utf-8", "replace") or "{}"
        if single_json is not None:
            arg_names = []
            shape = None  # the body is the single argument: not planned by shape
        if read and fn.volatility == "v":
            raise errors.ApiError(405, "PGRST101", f"Cannot use the {method} method on RPC")
        params = q.Params()
        aliases = plan.Aliases()
        applied: list[str] = []
        rollback, tx_applied = self._tx_rollback(prefer.tx)
        if tx_applied:
            applied.append(f"tx={prefer.tx}")
        alias = fn.name
        scalar = fn.returns_table is None and not fn.returns_composite
        args_text = dump_body(args) if arg_names else None
        source, ctes = q.call_source(fn, alias, arg_names, args_text,
                                     single_json if single_json is not None and fn.params else None, params)
        offset = qp.offset.get((), 0)
        limit = self._max_rows(qp.limit.get(()))
        if fn.return_type == "void":
            stmt = q.wrap(sql.SQL("SELECT NULL AS pgrst_scalar FROM {}").format(source), "scalar", None, ctes)
            void_check = (lambda r: False) if rollback else None

            def respond_void(row: Row) -> Answer:
                return self._finish(Answer(204, b"", {}), row[3], row[4], applied)

            stmt_done, values = self._remember(ckey, shape, schema, stmt, params, args_text, "dump", read,
                                               void_check, respond_void)
            row = await self._run(ctx, schema, stmt_done, values, read_only=read, check=void_check)
            return respond_void(row)
        if scalar:
            scol = sql.SQL("{}.{}").format(sql.Identifier(alias), sql.Identifier(alias))
            if len(fn.out_columns) == 1:
                scol = sql.SQL("{}.{}").format(sql.Identifier(alias), sql.Identifier(fn.out_columns[0].name))
            inner = sql.SQL("SELECT {} AS pgrst_scalar FROM {}").format(scol, source)
            if fn.returns_set and (limit is not None or offset):
                inner += sql.SQL(" LIMIT {} OFFSET {}").format(params.add(limit), params.add(offset))
            body_kind = "scalar_set" if fn.returns_set else "scalar"
            page_offset = offset
        else:
            table = self.cache.tables.get(fn.returns_table) if fn.returns_table else None
            if table is None:
                table = Table(fn.schema, fn.name, "f", {c.name: _out_column(c) for c in fn.out_columns})
            node = plan.ReadNode(table, alias, alias)
            plan._fill(self.cache, node, qp.select, aliases, self.settings.db_aggregates_enabled)
            plan._attach(node, qp)
            inner = q.root_query(node, source, params, limit, offset)
            body_kind = "stripped" if media.nulls_stripped else "array"
            page_offset = offset
        total_sql = None
        if prefer.count and fn.returns_set:
            applied.append(f"count={prefer.count}")
            total_sql = sql.SQL("(SELECT pg_catalog.count(*) FROM {})").format(source)
        stmt = q.wrap(inner, body_kind, total_sql, ctes)
        if media.kind == "plan":
            return await self._explain(ctx, schema, stmt, params, media)

        def check(row: Row) -> bool:
            if prefer.max_affected is not None and prefer.handling == "strict" and row[1] > prefer.max_affected:
                raise errors.max_affected_violation(row[1])
            return not rollback

        may_reject = rollback or (not read and prefer.max_affected is not None and prefer.handling == "strict")

        def respond(row: Row) -> Answer:
            return self._rpc_answer(row, fn, scalar, media, page_offset, applied)

        stmt_done, values = self._remember(ckey, shape, schema, stmt, params, args_text, "dump", read,
                                           check if may_reject else None, respond)
        row = await self._run(ctx, schema, stmt_done, values, read_only=read, check=check if may_reject else None)
        return respond(row)

    def _rpc_answer(self, row: Row, fn, scalar: bool, media: MediaType, page_offset: int, applied: list[str]) -> Answer:
        total, page_total, body_text, h_guc, s_guc = row
        single = not fn.returns_set
        if single and not scalar:
            # a function returning one composite value answers an object
            body_text = body_text[1:-1] if page_total == 1 else "null"
            if media.kind == "object":
                out = body_text.encode()
            else:
                out = shape_body(body_text, media, page_total) if media.kind == "csv" else body_text.encode()
        elif media.kind == "object" and not single:
            out = shape_body(body_text, media, page_total)
        else:
            out = body_text.encode() if media.kind != "csv" else shape_body(body_text, media, page_total)
        status = range_status(page_offset, page_total, total) if fn.returns_set else 200
        answer = Answer(status, out, {"content-type": media.content_type,
                                      "content-range": (content_range(page_offset, page_total, total) if fn.returns_set
                                                        else f"0-{max(page_total - 1, 0)}/*")})
        return self._finish(answer, h_guc, s_guc, applied)

    # -- execution ------------------------------------------------------------------------------

    def _finish(self, answer: Answer, h_guc: str | None, s_guc: str | None, applied: list[str]) -> Answer:
        status, extra = guc_overrides(h_guc, s_guc)
        if status is not None:
            answer.status = status
        for k, v in extra.items():
            answer.headers[k.lower()] = v
        if applied:
            answer.headers["preference-applied"] = ", ".join(applied)
        return answer

    async def _run(self, ctx: RequestContext, schema: str, stmt: sql.Composable | flight.Statement,
                   values: dict[str, Any] | list[bytes | None], *,
                   read_only: bool, check: Callable[[Row], bool] | None = None) -> Row:
        """One transaction: BEGIN, role + claims, the statement (and COMMIT) in one flight.

        Reads commit in the same flight; writes first look at the result (`check`) to decide
        between commit and rollback (max-affected, singular object, tx=rollback).
        """
        if not isinstance(stmt, flight.Statement):
            stmt = flight.to_statement(stmt.as_bytes(None))
        if type(values) is dict:
            values = stmt.bind(values)
        ctx_values = CONTEXT.bind([*ctx.params(), self._search_paths.get(schema, '"public"')])
        steps: list[flight.Step] = [(BEGIN_READ if read_only else BEGIN_WRITE, ()), (CONTEXT, ctx_values),
                                    (stmt, values)]
        if check is None:
            steps.append((COMMIT, ()))
        pool = self.pool
        try:
            lease = await pool.acquire()
            conn = lease.conn
            try:
                results = await flight.run(conn, steps, lease)
                row = _decode(results[2])
                if check is not None:
                    try:
                        commit = check(row)
                    except errors.ApiError:
                        await flight.run(conn, [(ROLLBACK, ())], lease)
                        raise
                    await flight.run(conn, [(COMMIT if commit else ROLLBACK, ())], lease)
                return row
            except psycopg.Error:
                if not conn.closed and conn.pgconn.transaction_status != pq.TransactionStatus.IDLE:
                    await flight.run(conn, [(ROLLBACK, ())], lease)
                raise
            finally:
                await pool.release(lease)
        except psycopg.errors.Error as exc:
            if is_unavailable(exc):
                raise errors.connection_error() from None
            raise errors.from_pg_error(exc, authed=ctx.role != "anon") from None
        except DatabaseUnavailable:
            raise errors.connection_error() from None
        except PoolTimeout:
            raise errors.ApiError(504, "PGRST003", "Timed out acquiring connection from connection pool.") from None

    async def _explain(self, ctx: RequestContext, schema: str, stmt: sql.Composable, params: q.Params,
                       media: MediaType) -> Answer:
        opts = [o.upper() for o in media.plan_options if o in ("analyze", "verbose", "settings", "buffers", "wal")]
        fmt = "JSON" if media.plan_format == "json" else "TEXT"
        explain = sql.SQL("EXPLAIN (" + ", ".join([f"FORMAT {fmt}", *opts]) + ") {}").format(stmt)
        ctx_params = [*ctx.params(), self._search_paths.get(schema, '"public"')]
        try:
            async with self.ctx.api_pool.connection() as conn:
                await conn.execute(CONTEXT_SQL, ctx_params)
                cur = await conn.execute(explain, params.values, prepare=False)
                rows = await cur.fetchall()
                await conn.rollback()
        except psycopg.errors.Error as exc:
            raise errors.from_pg_error(exc, ctx.role != "anon") from None
        out = orjson.dumps(rows[0][0]) if fmt == "JSON" else "\n".join(r[0] for r in rows).encode()
        return Answer(200, out, {"content-type": media.content_type})


def _decode(result: Any) -> Row:
    """The wrapped statement's one row: total, page_total, body, response headers, status."""
    total, page_total, body, h_guc, s_guc = flight.row(result) or (None, b"0", b"[]", None, None)
    return (None if total is None else int(total), int(page_total or 0), (body or b"").decode(),
            None if h_guc is None else h_guc.decode(), None if s_guc is None else s_guc.decode())


def _out_column(p) -> Any:
    from server.rest.schema_cache import Column

    return Column(p.name, p.type, p.type, True, None, 0)


def _quote_ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def build(ctx: AppContext) -> RestService:
    return RestService(ctx)
