"""Resumable uploads: the TUS 1.0.0 protocol at /upload/resumable, as storage-api serves
it through @tus/server 1.x (creation, creation-with-upload, termination, expiration).

The upload URL is `<storage URL>/upload/resumable/<base64url of bucket/name/version>`.
A creation (POST) carries Upload-Length and Upload-Metadata (bucketName, objectName,
contentType, cacheControl, metadata); it is checked like a normal upload before any byte
is taken: the name, the bucket's size limit and mime types, the global limit, and the
caller's right to write the row (tried and rolled back under the caller's role). Every
PATCH is checked again, appends at the offset the upload is at (409 otherwise), and the
one that brings the last byte writes the object row, under its caller's role, exactly as
a normal upload does. `/upload/resumable/sign` takes a signed upload token (x-signature)
instead of a JWT.

Errors are what storage-api's tus server answers: tus's own plain-text bodies, and
storage errors as their message with their status code.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import re
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any, NamedTuple

import anyio
import orjson
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route

from server.core.body import declared_length
from server.core.context import AppContext
from server.core.health import is_unavailable
from server.core.request_context import RequestContext
from server.storage import content_types, errors, signing
from server.storage.backends import Backend, BackendMissing, KeyConflict
from server.storage.inputs import caller_of
from server.storage.media import http_date
from server.storage.paths import backend_key, is_valid_object_name, validate_bucket_name
from server.storage.service import SUPERUSER, StorageService
from server.storage.tus_store import Lease, LeaseLost, UploadRecord, UploadStore

log = logging.getLogger("supalite.storage.tus")

PATH = "/upload/resumable"
SIGNED_PATH = PATH + "/sign"
TUS_RESUMABLE = "1.0.0"
EXTENSIONS = "creation,creation-with-upload,termination,expiration"
OFFSET_STREAM = "application/offset+octet-stream"
# @tus/server's HEADERS, exposed to browsers and allowed with storage-api's own.
HEADERS = ("Authorization", "Content-Type", "Location", "Tus-Extension", "Tus-Max-Size", "Tus-Resumable",
           "Tus-Version", "Upload-Concat", "Upload-Defer-Length", "Upload-Length", "Upload-Metadata",
           "Upload-Offset", "X-HTTP-Method-Override", "X-Requested-With", "X-Forwarded-Host",
           "X-Forwarded-Proto", "Forwarded")
ALLOWED_HEADERS = ", ".join((*HEADERS, "Authorization", "X-Upsert", "Upload-Expires", "ApiKey", "x-signature"))
ALLOWED_METHODS = "POST, HEAD, PATCH, OPTIONS, DELETE"
MAX_METADATA_BYTES = 64 * 1024
_BASE64 = re.compile(r"[0-9+/A-Za-z]*={0,2}")
_DIGITS = re.compile(r"0|[1-9][0-9]{0,17}")


class Writer(NamedTuple):
    """Who writes an upload's row, from the JWT or the signed token."""

    role: RequestContext
    owner: str | None
    upsert: bool


def caller_key(request: Request, writer: Writer, signed: bool) -> str | None:
    """Whom an upload counts for (its creator, in storage.resumable_uploads.created_by): a
    user by their id; a caller without one (the anon key, a signed URL made without an
    owner) by its role and address, so that one anonymous client cannot use up every other
    one's share. The service_role key is the project's own server, trusted as it is for
    every other write: None, not bounded."""
    if writer.owner:
        return f"user:{writer.owner}"
    if not signed and writer.role.role == "service_role":
        return None
    address = request.client.host if request.client else ""
    return f"{'signed' if signed else writer.role.role}@{address}"


class TusError(Exception):
    """A response of @tus/server itself: a status and a plain-text body."""

    def __init__(self, status: int, body: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(body)
        self.status = status
        self.body = body
        self.headers = headers or {}


def _tus(status: int, body: str) -> TusError:
    if (status, body) == ABORTED:  # the client may still be sending: this connection is done
        return TusError(status, body, {"Connection": "close"})
    return TusError(status, body)


MISSING_OFFSET = (403, "Upload-Offset header required\n")
INVALID_CONTENT_TYPE = (403, "Content-Type header required\n")
FILE_NOT_FOUND = (404, "The file for this url was not found\n")
INVALID_OFFSET = (409, "Upload-Offset conflict\n")
FILE_NO_LONGER_EXISTS = (410, "The file for this url no longer exists\n")
ERR_SIZE_EXCEEDED = (413, "upload's size exceeded\n")
ERR_MAX_SIZE_EXCEEDED = (413, "Maximum size exceeded\n")
INVALID_LENGTH = (400, "Upload-Length or Upload-Defer-Length header required\n")
INVALID_TERMINATION = (400, "Cannot terminate an already completed upload")
ABORTED = (400, "Request aborted due to lock acquired")
UNSUPPORTED_CONCATENATION = (501, "Concatenation extension is not (yet) supported. Disable parallel uploads in the tus client.\n")
UNSUPPORTED_DEFER_LENGTH = (501, "creation-defer-length extension is not (yet) supported.\n")
INVALID_METADATA = (400, "Upload-Metadata is invalid. It MUST consist of one or more comma-separated key-value pairs. "
                         "The key and value MUST be separated by a space. The key MUST NOT contain spaces and commas "
                         "and MUST NOT be empty. The key SHOULD be ASCII encoded and the value MUST be Base64 encoded. "
                         "All keys MUST be unique")


# -- headers -----------------------------------------------------------------------------

def parse_metadata(value: str | None) -> dict[str, str | None]:
    """Upload-Metadata (`key base64,key2`), as @tus/server's Metadata.parse."""
    if not value or not value.strip() or len(value) > MAX_METADATA_BYTES:
        raise ValueError("Metadata string is not valid")
    meta: dict[str, str | None] = {}
    for pair in value.split(","):
        tokens = pair.split(" ")
        key = tokens[0]
        if not key or any(ord(c) > 127 or c in " ," for c in key) or key in meta or len(tokens) > 2:
            raise ValueError("Metadata string is not valid")
        if len(tokens) == 1:
            meta[key] = None
            continue
        encoded = tokens[1]
        if len(encoded) % 4 or not _BASE64.fullmatch(encoded):
            raise ValueError("Metadata string is not valid")
        meta[key] = base64.b64decode(encoded).decode("utf-8", errors="replace")
    return meta


def stringify_metadata(metadata: dict[str, str | None]) -> str:
    return ",".join(key if value is None else f"{key} {base64.b64encode(value.encode()).decode()}"
                    for key, value in metadata.items())


def _valid_header(name: str, value: str) -> bool:
    """@tus/server's HeaderValidator; headers it does not know are valid."""
    if name in ("upload-offset", "upload-length"):
        return bool(_DIGITS.fullmatch(value))
    if name == "upload-defer-length":
        return value == "1"
    if name == "upload-metadata":
        try:
            parse_metadata(value)
        except ValueError:
            return False
        return True
    if name == "x-forwarded-proto":
        return value in ("http", "https")
    if name in ("tus-version", "tus-resumable"):
        return value == TUS_RESUMABLE
    if name == "content-type":
        return value == OFFSET_STREAM
    if name == "upload-concat":
        return value == "partial" or value.startswith("final;")
    return True


def encode_id(upload_id: str) -> str:
    return base64.urlsafe_b64encode(upload_id.encode()).decode().rstrip("=")


def decode_id(token: str) -> tuple[str, str, str]:
    """(bucket, name, version) of an upload URL's last segment, as storage-api's UploadId."""
    try:
        text = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode()
    except (binascii.Error, ValueError, UnicodeDecodeError):
        text = ""
    parts = text.split("/")
    if len(parts) < 2:
        raise errors.StorageError("InvalidUploadId", 400, "Invalid upload id")
    bucket, name, version = parts[0], "/".join(parts[1:-1]), parts[-1]
    validate_bucket_name(bucket)
    if not is_valid_object_name(name):
        raise errors.invalid_key(name)
    if not version:
        raise errors.StorageError("InvalidUploadId", 400, "Version not provided")
    if not version.isprintable() or len(version) > 64:  # never a version this server made
        raise errors.StorageError("InvalidUploadId", 400, "Invalid upload id")
    return bucket, name, version


# -- the request body --------------------------------------------------------------------

class Body:
    """A PATCH (or creation) body, at most `limit` bytes. It ends (rather than raising)
    when the client goes away or another request asks for the upload, so that the bytes
    received up to then are kept; `gone`, `released` and `overflow` tell why it ended."""

    def __init__(self, request: Request, limit: int, released: asyncio.Event) -> None:
        self.request = request
        self.limit = limit
        self.released_event = released
        self.received = 0
        self.gone = self.released = self.overflow = False

    async def chunks(self) -> AsyncIterator[bytes]:
        source = self.request.stream().__aiter__()
        released = asyncio.ensure_future(self.released_event.wait())
        try:
            while True:
                following = asyncio.ensure_future(source.__anext__())
                await asyncio.wait((following, released), return_when=asyncio.FIRST_COMPLETED)
                if not following.done():
                    following.cancel()
                    self.released = True
                    return
                try:
                    chunk = following.result()
                except StopAsyncIteration:
                    return
                except ClientDisconnect:
                    self.gone = True
                    return
                if not chunk:
                    continue
                room = self.limit - self.received
                if len(chunk) > room:
                    self.overflow = True
                    chunk = chunk[:room]
                self.received += len(chunk)
                if chunk:
                    yield chunk
                if self.overflow:
                    return
        finally:
            released.cancel()


# -- the endpoint ------------------------------------------------------------------------

class TusEndpoint:
    def __init__(self, ctx: AppContext, service: StorageService, backend: Backend) -> None:
        self.ctx = ctx
        self.service = service
        self.backend = backend
        self.store = UploadStore(ctx, backend)

    def routes(self) -> list[Route]:
        """The signed routes first: `/sign` would otherwise read as an upload id."""
        methods = ["POST", "PATCH", "HEAD", "DELETE", "OPTIONS", "PUT"]  # PUT: tus's "Not found", as upstream

        async def signed(request: Request) -> Response:
            return await self.handle(request, signed=True)

        async def authenticated(request: Request) -> Response:
            return await self.handle(request, signed=False)

        return [*(Route(path, signed, methods=methods) for path in (SIGNED_PATH, SIGNED_PATH + "/{upload}")),
                *(Route(path, authenticated, methods=methods) for path in (PATH, PATH + "/{upload}"))]

    async def handle(self, request: Request, signed: bool) -> Response:
        method = request.method
        caller = None
        if method != "OPTIONS" and not signed:
            try:
                caller = caller_of(request, self.ctx)  # the JWT first, as storage-api's route checks it
            except errors.StorageError as exc:
                return exc.response()
        try:
            if method == "OPTIONS":
                return self.options(request)
            method = request.headers.get("x-http-method-override", method).upper()
            if "tus-resumable" not in request.headers:
                return _plain(412, "Tus-Resumable Required\n")
            invalid = [name for name, value in request.headers.items()
                       if (name != "content-type" or method == "PATCH") and not _valid_header(name, value)]
            if invalid:
                return _plain(400, f"Invalid {' '.join(invalid)}\n")
            if method == "POST":
                response = await self.create(request, caller, signed)
            elif method == "PATCH":
                response = await self.patch(request, caller, signed)
            elif method == "HEAD":
                response = await self.head(request, caller, signed)
            elif method == "DELETE":
                response = await self.terminate(request, caller, signed)
            else:
                return _plain(404, "Not found\n")
            return _with_cors(response, request)
        except TusError as exc:
            return _with_cors(_plain(exc.status, exc.body, exc.headers), request)
        except errors.StorageError as exc:
            return _with_cors(_plain(exc.status, exc.message), request)
        except Exception as exc:
            if is_unavailable(exc):
                return _with_cors(_plain(503, errors.database_unavailable().message), request)
            log.exception("resumable upload failed: %s %s", request.method, request.url.path)
            return _with_cors(_plain(500, "Something went wrong with that request\n"), request)

    # -- OPTIONS -----------------------------------------------------------------------

    def options(self, request: Request) -> Response:
        headers = {"Tus-Version": TUS_RESUMABLE, "Tus-Extension": EXTENSIONS,
                   "Tus-Max-Size": str(self.ctx.settings.file_size_limit),
                   "Access-Control-Allow-Methods": ALLOWED_METHODS, "Access-Control-Allow-Headers": ALLOWED_HEADERS,
                   "Access-Control-Max-Age": "86400"}
        return _with_cors(_plain(204, "", headers), request)

    # -- who writes --------------------------------------------------------------------

    async def _writer(self, request: Request, caller: RequestContext | None, bucket: str, name: str) -> Writer:
        """(role, owner, upsert) of this request's writes: its JWT, or its signed upload
        token; storage-api checks them on every request that writes."""
        if caller is None:
            token = request.headers.get("x-signature")
            if not token:
                raise errors.invalid_signature("Missing x-signature header")
            try:
                claims = signing.verify(self.ctx.keys, token, bucket, name, signing.UPLOAD)
            except errors.StorageError as exc:
                if exc.code == "ExpiredToken":
                    raise errors.invalid_signature('"exp" claim timestamp check failed') from None
                if exc.code == "InvalidJWT":
                    raise errors.invalid_signature("Invalid Compact JWS") from None
                raise
            owner = claims.get("owner")
            return Writer(SUPERUSER, owner if isinstance(owner, str) else None, claims.get("upsert") is True)
        return Writer(caller, caller.claims.get("sub"), request.headers.get("x-upsert") == "true")

    async def _check_write(self, writer: Writer, bucket: str, name: str) -> None:
        """The normal upload's permission check: the row tried and rolled back."""
        await self.service.check_write(writer.role, bucket, name, writer.owner, upsert=writer.upsert)

    # -- POST: creation ----------------------------------------------------------------

    async def create(self, request: Request, caller: RequestContext | None, signed: bool) -> Response:
        h = request.headers
        if "upload-concat" in h:
            raise _tus(*UNSUPPORTED_CONCATENATION)
        if "upload-defer-length" in h:
            raise _tus(*UNSUPPORTED_DEFER_LENGTH)
        if "upload-length" not in h:
            raise _tus(*INVALID_LENGTH)
        length = int(h["upload-length"])
        metadata = parse_metadata(h["upload-metadata"]) if "upload-metadata" in h else None
        if metadata is None:
            raise errors.StorageError("InvalidRequest", 400, "Metadata header is required")
        bucket = validate_bucket_name(metadata.get("bucketName") or "")
        name = metadata.get("objectName") or ""
        if not is_valid_object_name(name):
            raise errors.invalid_key(name)
        writer = await self._writer(request, caller, bucket, name) if signed else None
        bucket_row = await self.service.bucket_config(bucket)
        if length > self.service.upload_limit(bucket_row):  # storage-api's maxSize
            raise _tus(*ERR_MAX_SIZE_EXCEEDED)
        writer = writer or await self._writer(request, caller, bucket, name)
        await self._check_write(writer, bucket, name)
        # Parsed and checked as a normal upload's type: the one stored is the one checked
        # (none given is octet-stream, which a bucket's list must then allow too).
        media_type = content_types.require(metadata.get("contentType"))
        if not content_types.allowed(media_type, bucket_row.get("allowed_mime_types")):
            raise errors.invalid_mime_type(metadata.get("contentType") or media_type.essence)
        cache_control = metadata.get("cacheControl") or ""
        cache_control = f"max-age={cache_control}" if re.fullmatch(r"-?\d+", cache_control) else "no-cache"
        with_body = h.get("content-type") == OFFSET_STREAM
        declared = declared_length(request.headers)
        if with_body and declared is not None and declared > length:
            raise _tus(*ERR_SIZE_EXCEEDED)

        version = str(uuid.uuid4())
        scratch = uuid.uuid4().hex
        key = backend_key(bucket, name, version)
        try:
            await self.backend.check_key(key)  # a name the bytes could never be placed at
        except KeyConflict:
            raise errors.invalid_key(name) from None
        mime = str(media_type)
        # The row first, counted against the caller's bound, and only then the backend's bytes.
        hold = str(uuid.uuid4())
        record = await self.store.create(f"{bucket}/{name}/{version}", scratch, length, metadata, mime,
                                         cache_control, caller_key(request, writer, signed), hold)
        try:
            state = await self.backend.resumable_open(scratch, key, mime, cache_control)
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self.store.remove(record.id)
            raise
        if not await self.store.opened(record, hold, state):
            await self.backend.resumable_abort(scratch, key, state)
            raise _tus(*FILE_NOT_FOUND)
        headers = {"Location": self._location(request, record.id, signed)}
        finished = length == 0
        if with_body:
            async with self.store.hold(record.id) as lease:
                assert lease is not None
                offset, finished = await self._append(request, lease, writer)
            headers["Upload-Offset"] = str(offset)
        elif finished:
            async with self.store.hold(record.id) as lease:
                assert lease is not None
                await self._finish(lease.record, writer)
        if finished:
            headers["Tus-Complete"] = "1"
        else:
            headers["Upload-Expires"] = http_date(record.expires_at)
        return _plain(201, "", headers)

    def _location(self, request: Request, upload_id: str, signed: bool) -> str:
        """The upload's URL under the storage URL: the configured public URL, else where
        the client reached us (X-Forwarded-Host/-Proto first, as @tus/server's
        respectForwardedHeaders reads them behind a proxy)."""
        mount = request.scope.get("root_path", "")  # where this app is mounted: /storage/v1
        if self.ctx.settings.public_url:
            base = self.ctx.settings.public_url.rstrip("/") + mount
        else:
            proto = request.headers.get("x-forwarded-proto")
            host = request.headers.get("x-forwarded-host") or request.url.netloc
            scheme = proto if proto in ("http", "https") else request.url.scheme
            base = f"{scheme}://{host}{mount}"
        return f"{base.rstrip('/')}{SIGNED_PATH if signed else PATH}/{encode_id(upload_id)}"

    # -- PATCH: bytes ------------------------------------------------------------------

    async def patch(self, request: Request, caller: RequestContext | None, signed: bool) -> Response:
        token = request.path_params.get("upload")
        if not token:
            raise _tus(*FILE_NOT_FOUND)
        if "upload-offset" not in request.headers:
            raise _tus(*MISSING_OFFSET)
        offset = int(request.headers["upload-offset"])
        if "content-type" not in request.headers:
            raise _tus(*INVALID_CONTENT_TYPE)
        bucket, name, version = decode_id(token)
        writer = await self._writer(request, caller, bucket, name)
        await self._check_write(writer, bucket, name)
        await self.service.bucket_config(bucket)  # the bucket must still be there
        async with self.store.hold(f"{bucket}/{name}/{version}") as lease:
            if lease is None:
                raise _tus(*FILE_NOT_FOUND)
            record = lease.record
            if _expired(record):
                raise _tus(*FILE_NO_LONGER_EXISTS)
            if record.offset != offset:
                raise _tus(*INVALID_OFFSET)
            if "upload-length" in request.headers:  # the length is known from the creation on
                raise _tus(*INVALID_LENGTH)
            declared = declared_length(request.headers)
            if declared is not None and offset + declared > record.length:
                raise _tus(*ERR_SIZE_EXCEEDED)
            new_offset, finished = await self._append(request, lease, writer)
        headers = {"Upload-Offset": str(new_offset)}
        if finished:
            headers["Tus-Complete"] = "1"
        else:
            headers["Upload-Expires"] = http_date(record.expires_at)
        return _plain(204, "", headers)

    async def _append(self, request: Request, lease: Lease,
                      writer: Writer | None) -> tuple[int, bool]:
        """Stream the body onto the upload; finish it when its last byte came. (offset, finished)"""
        record = lease.record
        body = Body(request, record.length - record.offset, lease.released)
        if record.offset < record.length or not record.completed:
            try:
                await self.backend.resumable_append(record.scratch, record.key, record.state, record.offset,
                                                    body.chunks(), record.length,
                                                    lambda state, offset: self.store.save(lease, state, offset))
            except BackendMissing:
                raise _tus(*FILE_NOT_FOUND) from None
            except LeaseLost:
                raise _tus(*ABORTED) from None
        if body.released:
            raise _tus(*ABORTED)
        if body.overflow:
            raise _tus(*ERR_MAX_SIZE_EXCEEDED)
        finished = record.offset == record.length
        if finished and not body.gone and writer is not None:
            await self._finish(record, writer)
        return record.offset, finished

    async def _finish(self, record: UploadRecord, writer: Writer) -> None:
        """The last byte is in: place the bytes and write the object row under the
        caller's role, as a normal upload does (storage-api's onUploadFinish)."""
        if record.completed or await self.store.object_written(record):
            if not record.completed:
                await self.store.mark_completed(record.id)
            return  # a repeated final PATCH: the object is written already
        try:
            head = await self.backend.resumable_complete(record.scratch, record.key, record.state)
        except BackendMissing:
            await self.store.remove(record.id)
            raise _tus(*FILE_NOT_FOUND) from None
        except KeyConflict:  # another object's version came in the way since the creation
            await self.backend.resumable_abort(record.scratch, record.key, record.state)
            await self.store.remove(record.id)
            raise errors.invalid_key(record.name) from None
        try:
            await self.service.commit_object(writer.role, record.bucket_id, record.name, writer.owner, record.version,
                                             head, record.content_type, record.cache_control,
                                             _user_metadata(record.metadata), upsert=writer.upsert)
        except BaseException:
            await self.store.remove(record.id)  # its bytes are gone with the refused row: start again
            raise
        await self.store.mark_completed(record.id)
        record.completed = True

    # -- HEAD: where an upload is ------------------------------------------------------

    async def head(self, request: Request, caller: RequestContext | None, signed: bool) -> Response:
        """Where an upload is, and its Upload-Metadata (its bucket, name, type and user
        metadata), told only to its creator and to whoever may write it. storage-api lets
        any caller with a JWT HEAD any upload URL; here everyone else gets what their PATCH
        would get from storage-api's write check (403, "new row violates row-level security
        policy"), whether the upload exists or not."""
        token = request.path_params.get("upload")
        if not token:
            raise _tus(*FILE_NOT_FOUND)
        bucket, name, version = decode_id(token)
        writer = await self._writer(request, caller, bucket, name)  # a signed URL's token is checked first
        record = await self.store.get(f"{bucket}/{name}/{version}")
        # The service_role key, or a valid signed upload token for this object, may see it.
        trusted = writer.role.role == "service_role"
        if not trusted and (record is None or record.created_by != caller_key(request, writer, signed)):
            await self._check_write(writer, bucket, name)
        if record is None:
            raise _tus(*FILE_NOT_FOUND)
        if _expired(record):
            raise _tus(*FILE_NO_LONGER_EXISTS)
        headers = {"Cache-Control": "no-store", "Upload-Offset": str(record.offset), "Upload-Length": str(record.length)}
        if record.metadata:
            headers["Upload-Metadata"] = stringify_metadata(record.metadata)
        return _plain(200, "", headers)

    # -- DELETE: termination -----------------------------------------------------------

    async def terminate(self, request: Request, caller: RequestContext | None, signed: bool) -> Response:
        token = request.path_params.get("upload")
        if not token:
            raise _tus(*FILE_NOT_FOUND)
        bucket, name, version = decode_id(token)
        await self._check_write(await self._writer(request, caller, bucket, name), bucket, name)
        async with self.store.hold(f"{bucket}/{name}/{version}") as lease:
            if lease is None:
                raise _tus(*FILE_NOT_FOUND)
            record = lease.record
            if record.offset == record.length:
                raise _tus(*INVALID_TERMINATION)
            await self.backend.resumable_abort(record.scratch, record.key, record.state)
            await self.store.remove(record.id)
        return _plain(204, "")


def _user_metadata(metadata: dict[str, str | None]) -> dict[str, Any] | None:
    """The `metadata` entry (JSON text) as the object's user_metadata; not JSON: none."""
    text = metadata.get("metadata")
    if not text:
        return None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _expired(record: UploadRecord) -> bool:
    return datetime.now(UTC) > record.expires_at


def _plain(status: int, body: str, headers: dict[str, str] | None = None) -> Response:
    return Response(body, status_code=status, headers={"Tus-Resumable": TUS_RESUMABLE, **(headers or {})})


def _with_cors(response: Response, request: Request) -> Response:
    response.headers["Access-Control-Allow-Origin"] = request.headers.get("origin") or "*"
    response.headers["Access-Control-Expose-Headers"] = ", ".join(HEADERS)
    return response
