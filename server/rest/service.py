"""/rest/v1, the request pipeline as PostgREST's App.hs:

    caller (verified token) -> api_request.parse (ApiRequest; no database)
    -> plan (against the schema cache) -> sql.compose -> executor.run (one flight)
    -> response.answer

The output of plan and compose is kept per request shape (caches.StatementCache): a repeated
request goes from its ApiRequest straight to the executor with the statement composed the
first time. `respond` is the whole pipeline for one request; the REST lane
(server.serve.rest_lane) calls it straight from the HTTP parser, and `__call__` serves it as an
ASGI app for the requests the lane does not take.
"""

from __future__ import annotations

import logging
from collections.abc import Hashable, Mapping
from typing import TYPE_CHECKING

from starlette.types import Receive, Scope, Send

from server.core.caller import Caller, verified_caller
from server.core.health import is_unavailable
from server.core.jwt import JwtError
from server.core.request_context import RequestContext
from server.rest import errors, openapi, response, sql
from server.rest.api_request import parse
from server.rest.api_request.types import ApiRequest
from server.rest.body import read_body
from server.rest.caches import Prepared, StatementCache, prepare, statement_key
from server.rest.executor import Executor
from server.rest.plan import PlanConfig, plan
from server.rest.response import Answer
from server.rest.schema_cache import SchemaCache, SchemaCacheHolder

if TYPE_CHECKING:
    from server.core.context import AppContext

log = logging.getLogger("supalite.rest")

NO_BODY_METHODS = ("GET", "HEAD", "DELETE")  # their body is never read
_NO_CONTENT = (204, 304)  # statuses whose response has no body (a function may set them)


class RestService:
    def __init__(self, ctx: AppContext) -> None:
        settings = ctx.settings
        self.ctx = ctx
        self.settings = settings
        self.schemas = settings.db_schemas
        self.max_body = settings.rest_max_body_bytes
        self.plan_config = PlanConfig(settings.db_max_rows, settings.db_tx_end, settings.db_aggregates_enabled)
        self.schema_cache = SchemaCacheHolder(ctx, self.schemas)
        self.executor = Executor(ctx.api_pool, {s: search_path(s, settings.db_extra_search_path) for s in self.schemas},
                                 prepare=settings.db_prepared_statements)
        self.statements = StatementCache()
        self.schema_cache.on_reload.append(lambda _cache: self.statements.clear())
        ctx.on_startup.append(self.schema_cache.start)
        ctx.on_shutdown.append(self.schema_cache.stop)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """The service as an ASGI app (server.serve.rest_lane answers most requests without it)."""
        if scope["type"] != "http":
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        out = await self.respond(scope["method"], scope["path"][len(scope.get("root_path", "")):],
                                 scope.get("query_string", b"").decode("latin-1"), headers, receive)
        out_headers = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.response_headers(out.headers).items()]
        out_headers.append((b"content-length", str(len(out.body)).encode()))
        await send({"type": "http.response.start", "status": out.status, "headers": out_headers})
        await send({"type": "http.response.body", "body": out.body})

    async def respond(self, method: str, path: str, query: str, headers: dict[str, str], receive: Receive) -> Answer:
        """The answer to one request, errors included (never raises but for cancellation).
        `path` is below /rest/v1, `headers` lower-cased, `receive` the ASGI body source."""
        if method == "OPTIONS":
            return response.preflight_answer(headers.get("access-control-request-headers"))
        try:
            out = await self.serve(method, path, query, headers, receive)
        except errors.ApiError as err:
            out = response.error_answer(err)
        except Exception as exc:  # never a traceback to the client
            if is_unavailable(exc):
                out = response.error_answer(errors.connection_error())
            else:
                log.exception("rest: unexpected error on %s /rest/v1%s", method, path)
                out = response.error_answer(errors.internal_error())
        if method == "HEAD" or out.status in _NO_CONTENT:
            out.body = b""  # a 204 or 304 has none: the client would read it as the next response
        return out

    async def serve(self, method: str, path: str, query: str, headers: dict[str, str], receive: Receive) -> Answer:
        caller = self.caller(headers)  # before the body: an invalid token costs no upload
        body = b"" if method in NO_BODY_METHODS else await read_body(receive, headers, self.max_body)
        api_request = await parse(method, path, query, headers, body, self.schemas,
                                  self.settings.db_plan_enabled)
        if api_request.action == "schema":
            return response.openapi_answer(openapi.document(self.cache, api_request.schema, self.settings))
        prepared = self.prepared(statement_key(caller.role, method, path, query, headers), api_request)
        context = RequestContext.of(caller, method, "/" + path.lstrip("/"), headers)
        result = await self.executor.run(context, api_request.schema, prepared.statement,
                                         prepared.bind(api_request), prepared.plan.tx, prepared.estimate)
        return response.answer(prepared.plan, result)

    def prepared(self, key: Hashable, api_request: ApiRequest) -> Prepared:
        """The plan and statement of this request: composed before for the same key and body
        shape, else planned and composed now (and kept when the plan allows)."""
        shape = api_request.body_shape
        if shape is not None:
            hit = self.statements.get(key, shape)
            if hit is not None:
                return hit
        planned = plan(api_request, self.cache, self.plan_config)
        entry = prepare(planned, sql.compose(planned))
        if planned.cacheable and shape is not None:
            self.statements.put(key, shape, entry)
        return entry

    def caller(self, headers: Mapping[str, str]) -> Caller:
        """Who asks: the Bearer token, else the apikey, else anonymous (PGRST301/303 when invalid)."""
        try:
            return verified_caller(self.ctx.keys, headers)
        except JwtError as exc:
            raise errors.jwt_error(str(exc)) from None

    @property
    def cache(self) -> SchemaCache:
        if self.schema_cache.cache is None:
            raise errors.schema_cache_not_loaded()
        return self.schema_cache.cache


def search_path(schema: str, extra: tuple[str, ...]) -> str:
    """The request's search_path: its schema, then PostgREST's db-extra-search-path, each
    as given (PostgREST's escapeIdentList: `"public", "public", "extensions"`)."""
    return ", ".join('"' + name.replace('"', '""') + '"' for name in (schema, *extra))


def build(ctx: AppContext) -> RestService:
    return RestService(ctx)
