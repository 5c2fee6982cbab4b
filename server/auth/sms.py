"""Sending one-time codes by SMS (GoTrue's sendPhoneConfirmation, the sending half).

A number listed in GOTRUE_SMS_TEST_OTP gets its fixed code and no SMS at all (Supabase's
`[auth.sms.test_otp]`), uncounted by the rate limit. Any other code is counted against the
server's sms_sent bucket, then sent:

- through the Send SMS hook when GOTRUE_HOOK_SEND_SMS_URI is set: a POST of GoTrue's payload
  `{metadata, user, sms: {otp, phone}}` signed as Standard Webhooks (webhook-id,
  webhook-timestamp, webhook-signature: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per
  secret of GOTRUE_HOOK_SEND_SMS_SECRETS), answered as GoTrue's v0 HTTP hooks answer;
- else, on a dev server, to the dev inbox (auth.dev_inbox, the number as recipient, kind
  'sms'), read at /inbox like the mails;
- else nowhere: GoTrue's "Unable to get SMS provider".

The caller keeps the code's hash and the per-number frequency (server.auth.phone).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import html
import logging
import re
import time
import uuid
from datetime import UTC, datetime
from typing import Any

import anyio
import httpx
import orjson
from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, internal
from server.auth.http import client_ip
from server.auth.mail import inbox_enabled, new_otp
from server.auth.models import dev_inbox
from server.auth.models.users import UserRow, user_json
from server.auth.service import AuthService
from server.core.config import Settings

HOOK_TIMEOUT_SECONDS = 5.0  # GoTrue's defaultHTTPHookTimeout, for all attempts together
HOOK_ATTEMPTS = 3  # defaultHTTPHookRetries
HOOK_BACKOFF_SECONDS = 2.0  # httpHookBackoffDuration, between attempts that could not connect
HOOK_RESPONSE_LIMIT = 200 * 1024  # payloadLimit
UNKNOWN = "unknown"  # GoTrue's ErrorCodeUnknown: a hook error answered with a status but no code
_CODE = re.compile(r"\{\{\s*\.Code\s*\}\}")

log = logging.getLogger("supalite.auth")


def test_otp(settings: Settings, phone: str) -> str | None:
    """The fixed code of a test number (`phone` in GoTrue's form: digits, no '+')."""
    return settings.sms_test_otp.get(phone)


def render(template: str, code: str) -> str:
    """GoTrue's SMS template: `{{ .Code }}` is the code."""
    return _CODE.sub(lambda _: code, template or "Your code is {{ .Code }}")


def hook_enabled(settings: Settings) -> bool:
    return bool(settings.hook_send_sms_uri)


async def send_otp(svc: AuthService, conn: AsyncConnection, *, phone: str, kind: str,
                   user: UserRow | None = None, request: Request | None = None) -> str:
    """Send a new code to `phone` (digits, no '+') and return it; a test number's fixed code
    is returned without any SMS. `kind` names what the code is for (confirmation,
    phone_change, reauthentication, mfa...): it appears in the dev inbox and in errors.
    `user` and `request` fill the hook payload's user and metadata.ip_address.
    Runs inside the caller's transaction: a failed send leaves nothing written."""
    settings = svc.ctx.settings
    fixed = test_otp(settings, phone)
    if fixed is not None:
        return fixed
    if not hook_enabled(settings) and not inbox_enabled(settings):
        raise internal("Unable to get SMS provider")
    await svc.limiter.check_sms()
    code = new_otp(settings.sms_otp_length)
    if hook_enabled(settings):
        await call_send_sms_hook(settings, hook_payload(phone, code, user, request))
        return code
    message = render(settings.sms_template, code)
    await dev_inbox.insert(conn, recipient=phone, subject=f"SMS ({kind})", kind="sms", otp=code, link="",
                           text_body=message, html_body=_html(message))
    return code


def _html(message: str) -> str:
    return f"<p>{html.escape(message)}</p>"


def hook_payload(phone: str, code: str, user: UserRow | None, request: Request | None) -> dict[str, Any]:
    """GoTrue's v0hooks.SendSMSInput."""
    metadata: dict[str, Any] = {"uuid": str(uuid.uuid4()), "time": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
                                "name": "send-sms"}
    ip = client_ip(request) if request is not None else ""
    if ip:
        metadata["ip_address"] = ip
    payload: dict[str, Any] = {"metadata": metadata}
    if user is not None:
        payload["user"] = user_json(user)
    payload["sms"] = {"otp": code, "phone": phone}
    return payload


def signatures(secrets_setting: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The webhook-signature header: one `v1,<signature>` per symmetric secret (`v1,whsec_...`)."""
    signed: list[str] = []
    for secret in filter(None, (s.strip() for s in secrets_setting.split("|"))):
        if not secret.startswith("v1,"):
            raise internal("Error generating signatures: invalid signature format")
        key_text = secret.removeprefix("v1,").removeprefix("whsec_")
        try:
            key = base64.b64decode(key_text, validate=True)
        except ValueError:
            raise internal("Error generating signatures: illegal base64 data") from None
        mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
        signed.append("v1," + base64.b64encode(mac).decode())
    return ", ".join(signed)


async def call_send_sms_hook(settings: Settings, payload: dict[str, Any]) -> None:
    """POST the payload to the hook; any failure answers as GoTrue's runHook does (500
    "Error running hook URI"), and an `{"error": {"http_code", "message"}}` answer becomes that
    error. GoTrue appends the URI to the message; here the URI and the failure's detail go to
    the log only, since the hook is an internal address clients have no business seeing."""
    uri = settings.hook_send_sms_uri
    try:
        output = await _dispatch(settings, uri, orjson.dumps(payload))
    except AuthError as failure:
        log.warning("auth: the send SMS hook %s failed: %s (%s)", uri, failure.message, failure.code)
        raise internal("Error running hook URI") from None
    error = output.get("error") if isinstance(output, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str) and error["message"]:
        status = error.get("http_code")
        if not isinstance(status, int) or isinstance(status, bool) or status == 0:
            status = 500
        if not 400 <= status <= 599:  # a status no HTTP client would read as an error
            status = 500
        raise AuthError(status, codes.UNEXPECTED_FAILURE if status == 500 else UNKNOWN, error["message"])


async def _dispatch(settings: Settings, uri: str, body: bytes) -> Any:
    """GoTrue's v0http RunHTTPHook: up to 3 attempts, all within 5 s; the decoded JSON answer.
    Redirects are followed, as Go's http.Client follows them."""
    if not uri.startswith(("http:", "https:")):
        raise internal(f'unsupported protocol: "{uri}" only HTTPS functions are supported at the moment')
    try:
        with anyio.fail_after(HOOK_TIMEOUT_SECONDS):
            async with httpx.AsyncClient(timeout=None, follow_redirects=True) as http:
                return await _attempts(http, settings, uri, body)
    except TimeoutError:
        raise AuthError(422, codes.HOOK_TIMEOUT,
                        f"Failed to reach hook within maximum time of {HOOK_TIMEOUT_SECONDS:f} seconds") from None


async def _attempts(http: httpx.AsyncClient, settings: Settings, uri: str, body: bytes) -> Any:
    for attempt in range(1, HOOK_ATTEMPTS + 1):
        msg_id, now = str(uuid.uuid4()), int(time.time())
        headers = {"Content-Type": "application/json", "webhook-id": msg_id, "webhook-timestamp": str(now),
                   "webhook-signature": signatures(settings.hook_send_sms_secrets, msg_id, now, body),
                   "Accept-Encoding": "identity"}
        try:
            async with http.stream("POST", uri, content=body, headers=headers) as response:
                if response.status_code in (200, 202, 204):
                    return await _decode(response)
        except httpx.TransportError as exc:  # not reached (refused, reset, DNS...): tried again after a pause
            log.warning("auth: the send SMS hook %s, attempt %d of %d: %s: %s", uri, attempt, HOOK_ATTEMPTS,
                        type(exc).__name__, exc)
            if attempt == HOOK_ATTEMPTS:
                raise AuthError(422, codes.HOOK_TIMEOUT_AFTER_RETRY, "Failed to reach hook after maximum retries") from None
            await anyio.sleep(HOOK_BACKOFF_SECONDS)
            continue
        status = response.status_code
        if status in (429, 503) and response.headers.get("Retry-After"):
            continue
        if status in (429, 503):
            raise internal("Service currently unavailable due to hook")
        if status == 400:
            raise internal("Invalid payload sent to hook")
        if status == 401:
            raise internal("Hook requires authorization token")
        raise internal(f"Unexpected status code returned from hook: {status}")
    raise internal("Service currently unavailable due to hook")


async def _decode(response: httpx.Response) -> Any:
    """The JSON answer of a 200, 202 or 204, read up to HOOK_RESPONSE_LIMIT bytes."""
    content_type = response.headers.get("Content-Type", "")
    if not content_type:
        if response.status_code == 204:
            return None
        raise AuthError(400, codes.HOOK_PAYLOAD_INVALID_CONTENT_TYPE, "Invalid Content-Type: Missing Content-Type header")
    if content_type.split(";")[0].strip().lower() != "application/json":
        raise AuthError(400, codes.HOOK_PAYLOAD_INVALID_CONTENT_TYPE,
                        "Invalid JSON response. Received content-type: " + content_type)
    body = bytearray()
    try:
        async for chunk in response.aiter_raw():
            body += chunk
            if len(body) > HOOK_RESPONSE_LIMIT:
                raise AuthError(422, codes.HOOK_PAYLOAD_OVER_SIZE_LIMIT,
                                f"Payload size exceeded size limit of {HOOK_RESPONSE_LIMIT} bytes")
    except httpx.HTTPError as exc:
        raise internal(f"Error reading the hook's answer: {type(exc).__name__}: {exc}") from None
    if not body.strip():
        return None
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        raise internal("Error unmarshaling JSON output.") from None
