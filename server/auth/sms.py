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
import secrets
import time
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import Message
from typing import Any

import anyio
import orjson
from psycopg import AsyncConnection
from starlette.requests import Request

from server.auth import error_codes as codes
from server.auth.errors import AuthError, internal
from server.auth.http import client_ip
from server.auth.mail import inbox_enabled
from server.auth.service import AuthService
from server.auth.user_store import UserRow, user_json
from server.config import Settings

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


def new_code(length: int) -> str:
    return "".join(secrets.choice("0123456789") for _ in range(length))


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
    svc.limiter.check_sms()
    code = new_code(settings.sms_otp_length)
    if hook_enabled(settings):
        await call_send_sms_hook(settings, hook_payload(phone, code, user, request))
        return code
    message = render(settings.sms_template, code)
    await conn.execute(
        "insert into auth.dev_inbox (recipient, subject, kind, otp, link, text_body, html_body)"
        " values (%s, %s, 'sms', %s, '', %s, %s)",
        [phone, f"SMS ({kind})", code, message, _html(message)])
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


@dataclass
class _HookReply:
    status: int
    content_type: str
    body: bytes
    truncated: bool
    retry_after: bool


class _Unreachable(Exception):
    """The hook could not be reached (connection refused, DNS...), as opposed to a timeout."""


def _post(url: str, body: bytes, headers: dict[str, str], timeout: float) -> _HookReply:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)  # http(s) only: checked by _dispatch
    except urllib.error.HTTPError as err:  # a status outside 2xx: still an answer
        with err:
            return _reply(err.code, err.headers, err)
    except (TimeoutError, urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        if isinstance(reason, TimeoutError) or isinstance(err, TimeoutError):
            raise TimeoutError from None
        raise _Unreachable(str(reason)) from None
    with response:
        return _reply(response.status, response.headers, response)


def _reply(status: int, headers: Message, stream: Any) -> _HookReply:
    body = stream.read(HOOK_RESPONSE_LIMIT + 1)
    return _HookReply(status, headers.get("Content-Type", "") or "", body[:HOOK_RESPONSE_LIMIT],
                      len(body) > HOOK_RESPONSE_LIMIT, bool(headers.get("Retry-After")))


async def call_send_sms_hook(settings: Settings, payload: dict[str, Any]) -> None:
    """POST the payload to the hook; any failure answers as GoTrue's runHook does (500
    "Error running hook URI"), and an `{"error": {"http_code", "message"}}` answer becomes that
    error. GoTrue appends the URI to the message; here it goes to the log only, since it is an
    internal address clients have no business seeing."""
    uri = settings.hook_send_sms_uri
    try:
        output = await _dispatch(settings, uri, orjson.dumps(payload))
    except AuthError:
        log.warning("auth: the send SMS hook %s failed", uri)
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
    """GoTrue's v0http RunHTTPHook: up to 3 attempts within 5 s; the decoded JSON answer."""
    if not uri.startswith(("http:", "https:")):
        raise internal(f'unsupported protocol: "{uri}" only HTTPS functions are supported at the moment')
    deadline = time.monotonic() + HOOK_TIMEOUT_SECONDS
    for attempt in range(HOOK_ATTEMPTS):
        msg_id, now = str(uuid.uuid4()), int(time.time())
        headers = {"Content-Type": "application/json", "webhook-id": msg_id, "webhook-timestamp": str(now),
                   "webhook-signature": signatures(settings.hook_send_sms_secrets, msg_id, now, body),
                   "Accept-Encoding": "identity"}
        left = deadline - time.monotonic()
        if left <= 0:
            raise _timeout()
        try:
            reply = await anyio.to_thread.run_sync(_post, uri, body, headers, left)
        except TimeoutError:
            raise _timeout() from None
        except _Unreachable:
            if attempt < HOOK_ATTEMPTS - 1:
                if deadline - time.monotonic() <= HOOK_BACKOFF_SECONDS:
                    raise _timeout() from None
                await anyio.sleep(HOOK_BACKOFF_SECONDS)
                continue
            raise AuthError(422, codes.HOOK_TIMEOUT_AFTER_RETRY, "Failed to reach hook after maximum retries") from None
        if reply.status in (200, 202, 204):
            return _decode(reply)
        if reply.status in (429, 503) and reply.retry_after:
            continue
        if reply.status in (429, 503):
            raise internal("Service currently unavailable due to hook")
        if reply.status == 400:
            raise internal("Invalid payload sent to hook")
        if reply.status == 401:
            raise internal("Hook requires authorization token")
        raise internal(f"Unexpected status code returned from hook: {reply.status}")
    raise internal("Service currently unavailable due to hook")


def _timeout() -> AuthError:
    return AuthError(422, codes.HOOK_TIMEOUT,
                     f"Failed to reach hook within maximum time of {HOOK_TIMEOUT_SECONDS:f} seconds")


def _decode(reply: _HookReply) -> Any:
    if not reply.content_type:
        if reply.status == 204:
            return None
        raise AuthError(400, codes.HOOK_PAYLOAD_INVALID_CONTENT_TYPE, "Invalid Content-Type: Missing Content-Type header")
    if reply.content_type.split(";")[0].strip().lower() != "application/json":
        raise AuthError(400, codes.HOOK_PAYLOAD_INVALID_CONTENT_TYPE,
                        "Invalid JSON response. Received content-type: " + reply.content_type)
    if reply.truncated:
        raise AuthError(422, codes.HOOK_PAYLOAD_OVER_SIZE_LIMIT,
                        f"Payload size exceeded size limit of {HOOK_RESPONSE_LIMIT} bytes")
    if not reply.body.strip():
        return None
    try:
        return orjson.loads(reply.body)
    except orjson.JSONDecodeError:
        raise internal("Error unmarshaling JSON output.") from None
