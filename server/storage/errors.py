"""Storage errors in supabase/storage's format.

The body is `{statusCode, code, error, message}` where statusCode is the *logical* status
as a string; the HTTP status is 400 for every error but a 500 (storage-api's
`userStatusCode`), and storage-js reads the real one from the body.
"""

from __future__ import annotations

import psycopg
from psycopg import errors as pg_errors
from starlette.responses import JSONResponse

from server.core.health import DATABASE_UNAVAILABLE, is_unavailable


class StorageError(Exception):
    """`error` is storage-api's backwards-compatible `error` field: the code unless the
    error names another (`Bucket not found`, `not_found`, `Unauthorized`...)."""

    def __init__(self, code: str, status: int, message: str, http_status: int | None = None,
                 error: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.status = status
        self.message = message
        self.error = error or code
        self.http_status = http_status if http_status is not None else (500 if status == 500 else 400)

    def body(self) -> dict[str, str]:
        return {"statusCode": str(self.status), "code": self.code, "error": self.error, "message": self.message}

    def response(self) -> JSONResponse:
        return JSONResponse(self.body(), status_code=self.http_status)


def no_such_bucket() -> StorageError:
    return StorageError("NoSuchBucket", 404, "Bucket not found", error="Bucket not found")


def no_such_key() -> StorageError:
    return StorageError("NoSuchKey", 404, "Object not found", error="not_found")


def invalid_key(key: str) -> StorageError:
    return StorageError("InvalidKey", 400, f"Invalid key: {key}")


def invalid_bucket_name(name: str) -> StorageError:
    return StorageError("InvalidBucketName", 400, "Bucket name invalid", error="Invalid Input")


def invalid_request(message: str) -> StorageError:
    return StorageError("InvalidRequest", 400, message)


def invalid_parameter(name: str, message: str | None = None) -> StorageError:
    return StorageError("InvalidParameter", 400, message or f"Invalid Parameter {name}")


def missing_parameter(name: str) -> StorageError:
    return StorageError("MissingParameter", 400, f"Missing Required Parameter {name}")


def invalid_jwt(message: str = "Invalid JWT") -> StorageError:
    return StorageError("InvalidJWT", 400, message)


def invalid_signature(message: str = "Invalid signature") -> StorageError:
    return StorageError("InvalidSignature", 400, message)


def expired_signature() -> StorageError:
    return StorageError("ExpiredToken", 400, "The provided token has expired.")


def access_denied(message: str = "new row violates row-level security policy") -> StorageError:
    return StorageError("AccessDenied", 403, message, error="Unauthorized")


def already_exists() -> StorageError:
    return StorageError("ResourceAlreadyExists", 409, "The resource already exists", error="Duplicate")


def bucket_already_exists() -> StorageError:
    return StorageError("BucketAlreadyExists", 409, "The resource already exists", error="Duplicate")


def bucket_not_empty() -> StorageError:
    """storage-api's ERRORS.BucketNotEmpty, whose code is InvalidRequest."""
    return StorageError("InvalidRequest", 409, "The bucket you tried to delete is not empty")


def entity_too_large() -> StorageError:
    return StorageError("EntityTooLarge", 413, "The object exceeded the maximum allowed size", error="Payload too large")


def body_too_large() -> StorageError:
    """A JSON body over the bound: 413 as Fastify's body limit answers it."""
    return StorageError("EntityTooLarge", 413, "Request body is too large", http_status=413)


def too_many_items(limit: int) -> StorageError:
    return StorageError("InvalidRequest", 400, f"Bulk object requests are limited to {limit} objects per request.")


def invalid_mime_type(mime: str) -> StorageError:
    return StorageError("InvalidMimeType", 415, f"mime type {mime} is not supported", error="invalid_mime_type")


def invalid_range() -> StorageError:
    return StorageError("InvalidRange", 400, "invalid range provided", error="invalid_range")


def range_not_satisfiable() -> StorageError:
    """A Range past the end: S3's InvalidRange (416) as storage-api passes an S3 error on."""
    return StorageError("S3Error", 416, "InvalidRange", error="The requested range is not satisfiable")


def missing_jwt() -> StorageError:
    """No token at all: storage-api verifies the empty string and answers with jose's error."""
    return access_denied("Invalid Compact JWS")


def invalid_continuation_token() -> StorageError:
    """storage-api's ERRORS.InvalidParameter (whose code is MissingParameter)."""
    return StorageError("MissingParameter", 400, "Invalid Parameter continuation token")


def too_many_uploads(limit: int) -> StorageError:
    """A caller's resumable uploads in progress at their bound: storage-api's SlowDown (429),
    its answer to a client asking for more than it is given."""
    return StorageError("SlowDown", 429, f"Too many resumable uploads in progress: at most {limit} per caller."
                        " Finish or cancel one, or wait for it to expire", http_status=429)


def internal(message: str = "Internal server error") -> StorageError:
    return StorageError("InternalError", 500, message)


def database_unavailable() -> StorageError:
    return StorageError("DatabaseError", 503, DATABASE_UNAVAILABLE, http_status=503)


def from_database(exc: psycopg.Error) -> StorageError:
    """SQLSTATE -> storage error, as storage-api's DBError.fromDBError maps them."""
    if is_unavailable(exc):
        return database_unavailable()
    if isinstance(exc, pg_errors.InsufficientPrivilege):
        text = exc.diag.message_primary or ""
        return access_denied("new row violates row-level security policy" if "row-level security" in text else text)
    if isinstance(exc, pg_errors.UniqueViolation):
        return already_exists()
    if isinstance(exc, pg_errors.ForeignKeyViolation):
        return StorageError("InvalidRequest", 404, "The related resource does not exist")
    if isinstance(exc, pg_errors.InvalidTextRepresentation):
        return invalid_parameter("value", exc.diag.message_primary or None)
    if isinstance(exc, pg_errors.DataError):  # a value out of range or of the wrong type
        return invalid_request(exc.diag.message_primary or "invalid input")
    if isinstance(exc, pg_errors.QueryCanceled):
        return StorageError("DatabaseTimeout", 544, "The connection to the database timed out", http_status=544)
    return StorageError("DatabaseError", 500, f"database error, code: {exc.sqlstate}")
