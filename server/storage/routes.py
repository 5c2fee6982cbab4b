"""Routes of /storage/v1: thin handlers that parse the request, call the domain layer
(service.py) and shape the answer exactly as supabase/storage does."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.core.config import parse_size
from server.core.context import AppContext
from server.core.health import is_unavailable
from server.storage import content_types, errors, inputs, media, signing, transforms
from server.storage.backends import make_backend
from server.storage.backends.base import Backend
from server.storage.db import BucketOptions, NewBucket
from server.storage.inputs import caller_of
from server.storage.paths import validate_bucket_name
from server.storage.reaper import Reaper
from server.storage.service import SUPERUSER, StorageService, js_date
from server.storage.tus import TusEndpoint
from server.storage.uploads import declared_file_size, read_upload

log = logging.getLogger("supalite.storage")
Handler = Callable[[Request], Awaitable[Response]]


def json_response(data: Any, status: int = 200) -> Response:
    body = data if isinstance(data, bytes) else orjson.dumps(data)
    return Response(body, status_code=status, media_type="application/json")


def message(text: str) -> Response:
    return json_response({"message": text})


def size_limit(value: Any, global_limit: int) -> int | None:
    """A bucket's file_size_limit (bytes or "20MB"), at most the global limit as in storage-api."""
    if value in (None, "", 0):
        return None
    invalid = errors.StorageError("InvalidRequest", 400, "Invalid file size format, hint: use 20GB / 20MB / 30KB / 3B")
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or (isinstance(value, str) and len(value) > 32):
        raise invalid
    try:
        size = parse_size(value if isinstance(value, str) else int(value))
    except (ValueError, TypeError, OverflowError):
        raise invalid from None
    if size is None or size < 0:
        raise invalid
    if size > global_limit:
        raise errors.entity_too_large()
    return size


def mime_list(value: Any) -> list[str] | None:
    """allowed_mime_types as storage-api keeps them: null stays null (anything), [] stays
    [] (anything), entries normalized (`type/subtype` or `type/*`, lower-cased, no params)."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise errors.invalid_request("body/allowed_mime_types must be array")
    if len(value) > inputs.MAX_ITEMS:
        raise errors.too_many_items(inputs.MAX_ITEMS)
    return content_types.normalize_allowed(value)


BUCKET_TYPES = ("STANDARD", "ANALYTICS")


def bucket_type(value: Any) -> str:
    """A new bucket's `type`: STANDARD unless given. ANALYTICS (Iceberg) buckets are a
    separate store storage-api keeps apart; this server has none."""
    if value is None:
        return "STANDARD"
    if not isinstance(value, str) or value not in BUCKET_TYPES:
        raise errors.invalid_request("body/type must be equal to one of the allowed values")
    if value != "STANDARD":
        raise errors.invalid_request("Analytics buckets are not supported by this server")
    return value


def lists_bucket_type(user_agent: str) -> bool:
    """storage-api leaves `type` out of GET /bucket for storage3 before 0.12.1."""
    match = _STORAGE3_AGENT.search(user_agent)
    if match is None:
        return True
    return tuple(int(n) for n in match.groups()) >= (0, 12, 1)


_STORAGE3_AGENT = re.compile(r"supabase-py/storage3 v(\d{1,9})\.(\d{1,9})\.(\d{1,9})", re.IGNORECASE)


def guarded(handler: Handler) -> Handler:
    """Every error leaves as a storage error body; nothing as a traceback."""

    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except errors.StorageError as exc:
            return exc.response()
        except Exception as exc:
            if is_unavailable(exc):
                return errors.database_unavailable().response()
            log.exception("storage request failed: %s %s", request.method, request.url.path)
            return errors.internal().response()

    return run


async def route_not_found(request: Request, exc: Exception) -> Response:
    """An unknown route or method: Fastify's default 404, which supabase/storage keeps.
    The URL is the one storage-api sees behind the gateway (without /storage/v1)."""
    raw_path = request.scope.get("raw_path") or request.url.path.encode()
    root = request.scope.get("root_path", "").encode()
    url = (raw_path[len(root):] if root and raw_path.startswith(root) else raw_path).decode("latin-1")
    if request.url.query:
        url += "?" + request.url.query
    return json_response({"message": f"Route {request.method}:{url} not found", "error": "Not Found",
                          "statusCode": 404}, status=404)


class StorageApi:
    """The handlers of /storage/v1 (storage-api's routes), over one StorageService."""

    def __init__(self, ctx: AppContext, service: StorageService, backend: Backend) -> None:
        self.ctx = ctx
        self.service = service
        self.backend = backend

    # -- buckets -----------------------------------------------------------------------

    async def list_buckets(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        q = request.query_params
        limit = inputs.integer(q.get("limit"), "limit", default=0, minimum=1, where="querystring") or None
        offset = inputs.integer(q.get("offset"), "offset", default=0, where="querystring")
        search = inputs.text(q, "search", required=False, where="querystring")
        column = inputs.choice(q, "sortColumn", ("id", "name", "created_at", "updated_at"), "querystring")
        order = inputs.choice(q, "sortOrder", ("asc", "desc"), "querystring")
        with_type = lists_bucket_type(request.headers.get("user-agent", ""))
        return json_response(await self.service.list_buckets(caller, limit, offset, search, column or "name",
                                                              order or "asc", with_type))

    def bucket_options(self, body: dict[str, Any]) -> BucketOptions:
        options: BucketOptions = {}
        if "public" in body:
            options["public"] = inputs.boolean(body["public"], "public")
        if "file_size_limit" in body:
            options["file_size_limit"] = size_limit(body["file_size_limit"], self.ctx.settings.file_size_limit)
        if "allowed_mime_types" in body:
            options["allowed_mime_types"] = mime_list(body["allowed_mime_types"])
        return options

    async def create_bucket(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        name = validate_bucket_name(inputs.text(body, "name", max_length=100))
        bucket_id = validate_bucket_name(inputs.text(body, "id", required=False, default=name, max_length=100) or name)
        values: NewBucket = {"id": bucket_id, "name": name, "public": False, "file_size_limit": None,
                             "allowed_mime_types": None, "type": bucket_type(body.get("type")),
                             **self.bucket_options(body)}
        created = await self.service.create_bucket(caller, values)
        return json_response({"name": created})

    async def get_bucket(self, request: Request) -> Response:
        row = await self.service.get_bucket(caller_of(request, self.ctx), request.path_params["bucket"])
        return json_response(row)

    async def update_bucket(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        changes = self.bucket_options(await inputs.json_body(request))
        await self.service.update_bucket(caller, request.path_params["bucket"], changes)
        return message("Successfully updated")

    async def delete_bucket(self, request: Request) -> Response:
        await self.service.delete_bucket(caller_of(request, self.ctx), request.path_params["bucket"])
        return message("Successfully deleted")

    async def empty_bucket(self, request: Request) -> Response:
        await self.service.empty_bucket(caller_of(request, self.ctx), request.path_params["bucket"])
        return message("Empty bucket has been queued. Completion may take up to an hour.")

    # -- object writes -----------------------------------------------------------------

    async def upload(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        update = request.method == "PUT"
        upsert = not update and request.headers.get("x-upsert") == "true"
        object_id, key = await self.service.upload(caller, request.path_params["bucket"], request.path_params["path"],
                                              lambda: read_upload(request), declared_file_size(request),
                                              upsert=upsert, update=update)
        return json_response({"Id": object_id, "Key": key})

    async def upload_signed(self, request: Request) -> Response:
        bucket, name = request.path_params["bucket"], request.path_params["path"]
        claims = signing.verify(self.ctx.keys, request.query_params.get("token"), bucket, name, signing.UPLOAD)
        owner = claims.get("owner")
        object_id, key = await self.service.upload(SUPERUSER, bucket, name, lambda: read_upload(request),
                                              declared_file_size(request), upsert=claims.get("upsert") is True,
                                              owner=owner if isinstance(owner, str) else None)
        return json_response({"Id": object_id, "Key": key})

    async def sign_upload(self, request: Request) -> Response:
        upsert = request.headers.get("x-upsert") == "true"
        result = await self.service.sign_upload(caller_of(request, self.ctx), request.path_params["bucket"],
                                           request.path_params["path"], upsert)
        return json_response(result)

    async def delete_object(self, request: Request) -> Response:
        await self.service.delete(caller_of(request, self.ctx), request.path_params["bucket"], request.path_params["path"])
        return message("Successfully deleted")

    async def delete_objects(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        prefixes = inputs.string_list(await inputs.json_body(request), "prefixes")
        rows = await self.service.delete_many(caller, request.path_params["bucket"], prefixes)
        return json_response(rows)

    def source_and_destination(self, body: dict[str, Any]) -> tuple[str, str, str, str]:
        bucket = inputs.text(body, "bucketId", max_length=100)
        destination = inputs.text(body, "destinationBucket", required=False, max_length=100) or bucket
        return bucket, inputs.text(body, "sourceKey"), destination, inputs.text(body, "destinationKey")

    async def move_object(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        await self.service.move(caller, *self.source_and_destination(await inputs.json_body(request)))
        return message("Successfully moved")

    async def copy_object(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        bucket, source, destination, dest_key = self.source_and_destination(body)
        metadata = body.get("metadata") if isinstance(body.get("metadata"), dict) else None
        result = await self.service.copy(caller, bucket, source, destination, dest_key,
                                    upsert=request.headers.get("x-upsert") == "true",
                                    copy_metadata=body.get("copyMetadata", True) is not False, user_metadata=metadata)
        return json_response(result)

    # -- object reads ------------------------------------------------------------------

    async def serve(self, request: Request, row: dict[str, Any], expires: str | None = None) -> Response:
        return await media.object_response(self.backend, self.service.key_of(row), row, request.headers,
                                           head=request.method == "HEAD",
                                           download=request.query_params.get("download"), expires=expires)

    async def get_object(self, request: Request) -> Response:
        row = await self.service.find(caller_of(request, self.ctx), request.path_params["bucket"], request.path_params["path"])
        return await self.serve(request, row)

    async def get_public_object(self, request: Request) -> Response:
        row = await self.service.find_public(request.path_params["bucket"], request.path_params["path"])
        return await self.serve(request, row)

    async def get_signed_object(self, request: Request) -> Response:
        bucket, name = request.path_params["bucket"], request.path_params["path"]
        claims = signing.verify(self.ctx.keys, request.query_params.get("token"), bucket, name, signing.DOWNLOAD)
        row = await self.service.find(SUPERUSER, bucket, name)
        return await self.serve(request, row, expires=media.expires_header(claims["exp"]))

    def info_response(self, request: Request, row: dict[str, Any]) -> Response:
        """storage-api's InfoRenderer: the object's fields (dates as JavaScript writes them)
        and its ETag / Last-Modified / Cache-Control headers."""
        metadata = row.get("metadata") or {}
        body = {"id": row["id"], "name": row["name"], "version": row["version"], "bucket_id": row["bucket_id"],
                "size": metadata.get("size"), "content_type": metadata.get("mimetype"),
                "cache_control": metadata.get("cacheControl"), "etag": metadata.get("eTag"),
                "metadata": row.get("user_metadata"), "last_modified": js_date(row["updated_at"]),
                "created_at": js_date(row["created_at"])}
        response = json_response(body)
        headers = {"ETag": metadata.get("eTag"), "Cache-Control": metadata.get("cacheControl"),
                   "Last-Modified": media.http_date(row["updated_at"]) if row.get("updated_at") else None}
        response.headers.update({k: v for k, v in headers.items() if isinstance(v, str) and v.isprintable()})
        try:  # the info route reads transform options without checking them
            segments = transforms.parse(request.query_params).segments()
        except errors.StorageError:
            segments = []
        if segments:
            response.headers["X-Transformations"] = ",".join(segments)
        return response

    async def info(self, request: Request) -> Response:
        row = await self.service.find(caller_of(request, self.ctx), request.path_params["bucket"], request.path_params["path"])
        return self.info_response(request, row)

    async def info_public(self, request: Request) -> Response:
        row = await self.service.find_public(request.path_params["bucket"], request.path_params["path"])
        return self.info_response(request, row)

    async def list_objects(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        column, order = inputs.sort_by(body)
        result = await self.service.list_objects(
            caller, request.path_params["bucket"], inputs.text(body, "prefix", required=False),
            inputs.integer(body.get("limit"), "limit", default=100, minimum=1, maximum=inputs.MAX_LIST_LIMIT),
            inputs.integer(body.get("offset"), "offset", default=0),
            inputs.text(body, "search", required=False), column, order)
        return json_response(result)

    async def list_objects_v2(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        column, order = inputs.sort_by_v2(body)
        limit = inputs.integer(body.get("limit"), "limit", default=1000, minimum=1)
        result = await self.service.list_objects_v2(
            caller, request.path_params["bucket"], inputs.text(body, "prefix", required=False),
            inputs.boolean(body.get("with_delimiter"), "with_delimiter"),
            inputs.text(body, "cursor", required=False, max_length=4 * inputs.MAX_TEXT) or None,
            limit, column, order)
        return json_response(result)

    async def sign_object(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        expires_in = signing.expires_in(body.get("expiresIn"))
        transform = body.get("transform")
        if transform is not None and not isinstance(transform, dict):
            raise errors.invalid_request("body/transform must be object")
        parsed = transforms.parse(transform, "body/transform") if transform else None
        url = await self.service.sign_download(caller, request.path_params["bucket"], request.path_params["path"],
                                          expires_in, parsed)
        return json_response({"signedURL": url})

    async def sign_objects(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        body = await inputs.json_body(request)
        expires_in = signing.expires_in(body.get("expiresIn"))
        paths = inputs.string_list(body, "paths")
        result = await self.service.sign_many(caller, request.path_params["bucket"], paths, expires_in)
        return json_response(result)

    # -- image transforms --------------------------------------------------------------

    async def rendered(self, request: Request, row: dict[str, Any], transform: transforms.Transform) -> Response:
        """The image in its output format, with storage-api's headers: the source's ETag and
        Cache-Control, imgproxy's options as X-Transformations."""
        data, mime = await self.service.render_image(row, transform, "image/webp" in request.headers.get("accept", ""))
        metadata = row.get("metadata") or {}
        headers = {"Accept-Ranges": "bytes", "ETag": metadata.get("eTag") or "",
                   "Cache-Control": metadata.get("cacheControl") or "no-cache",
                   "Last-Modified": media.http_date(row["updated_at"]),
                   **media.content_headers(mime, request.query_params.get("download"))}
        segments = transform.segments()
        if segments:
            headers["X-Transformations"] = ",".join(segments)
        return Response(data, headers=headers)

    async def render_authenticated(self, request: Request) -> Response:
        caller = caller_of(request, self.ctx)
        transform = transforms.parse(request.query_params)
        row = await self.service.find(caller, request.path_params["bucket"], request.path_params["path"])
        return await self.rendered(request, row, transform)

    async def render_public(self, request: Request) -> Response:
        transform = transforms.parse(request.query_params)
        row = await self.service.find_public(request.path_params["bucket"], request.path_params["path"])
        return await self.rendered(request, row, transform)

    async def render_signed(self, request: Request) -> Response:
        bucket, name = request.path_params["bucket"], request.path_params["path"]
        claims = signing.verify(self.ctx.keys, request.query_params.get("token"), bucket, name, signing.DOWNLOAD)
        transform = transforms.from_token(str(claims.get("transformations") or ""))
        row = await self.service.find(SUPERUSER, bucket, name)
        return await self.rendered(request, row, transform)

    async def status(self, request: Request) -> Response:
        return Response(status_code=200)


def build(ctx: AppContext, *, reap: bool = True) -> Starlette:
    """The /storage/v1 app. `reap=False` for one-off in-process use (the seed): the
    serving processes' reapers take care of the queue."""
    backend = make_backend(ctx.settings)
    service = StorageService(ctx, backend)
    ctx.on_startup.append(backend.start)
    ctx.on_shutdown.append(backend.close)
    resumable = TusEndpoint(ctx, service, backend)  # /upload/resumable (TUS)
    if reap:  # the reaper also sweeps expired resumable uploads; the store hears lease releases
        reaper = Reaper(ctx, backend, resumable.store)
        ctx.on_startup += [reaper.start, resumable.store.start]
        ctx.on_shutdown += [reaper.stop, resumable.store.stop]  # shutdown hooks run in reverse
    api = StorageApi(ctx, service, backend)

    obj = "/object/{bucket}/{path:path}"
    routes = [
        Route("/status", api.status),
        *resumable.routes(),
        Route("/bucket", guarded(api.list_buckets), methods=["GET"]),
        Route("/bucket", guarded(api.create_bucket), methods=["POST"]),
        Route("/bucket/{bucket}", guarded(api.get_bucket), methods=["GET"]),
        Route("/bucket/{bucket}", guarded(api.update_bucket), methods=["PUT"]),
        Route("/bucket/{bucket}", guarded(api.delete_bucket), methods=["DELETE"]),
        Route("/bucket/{bucket}/empty", guarded(api.empty_bucket), methods=["POST"]),
        Route("/object/list/{bucket}", guarded(api.list_objects), methods=["POST"]),
        Route("/object/list-v2/{bucket}", guarded(api.list_objects_v2), methods=["POST"]),
        Route("/object/move", guarded(api.move_object), methods=["POST"]),
        Route("/object/copy", guarded(api.copy_object), methods=["POST"]),
        Route("/object/sign/{bucket}", guarded(api.sign_objects), methods=["POST"]),
        Route("/object/sign/{bucket}/{path:path}", guarded(api.sign_object), methods=["POST"]),
        Route("/object/sign/{bucket}/{path:path}", guarded(api.get_signed_object), methods=["GET", "HEAD"]),
        Route("/object/upload/sign/{bucket}/{path:path}", guarded(api.sign_upload), methods=["POST"]),
        Route("/object/upload/sign/{bucket}/{path:path}", guarded(api.upload_signed), methods=["PUT"]),
        Route("/object/info/public/{bucket}/{path:path}", guarded(api.info_public), methods=["GET"]),
        Route("/object/info/authenticated/{bucket}/{path:path}", guarded(api.info), methods=["GET"]),
        Route("/object/info/{bucket}/{path:path}", guarded(api.info), methods=["GET"]),
        Route("/object/public/{bucket}/{path:path}", guarded(api.get_public_object), methods=["GET", "HEAD"]),
        Route("/object/authenticated/{bucket}/{path:path}", guarded(api.get_object), methods=["GET", "HEAD"]),
        Route("/object/{bucket}", guarded(api.delete_objects), methods=["DELETE"]),
        Route(obj, guarded(api.get_object), methods=["GET", "HEAD"]),
        Route(obj, guarded(api.upload), methods=["POST", "PUT"]),
        Route(obj, guarded(api.delete_object), methods=["DELETE"]),
        Route("/render/image/authenticated/{bucket}/{path:path}", guarded(api.render_authenticated), methods=["GET"]),
        Route("/render/image/public/{bucket}/{path:path}", guarded(api.render_public), methods=["GET"]),
        Route("/render/image/sign/{bucket}/{path:path}", guarded(api.render_signed), methods=["GET"]),
    ]
    return Starlette(routes=routes, exception_handlers={404: route_not_found, 405: route_not_found})
