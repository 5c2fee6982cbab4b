"""PKCE flows (RFC 7636) as GoTrue runs them (internal/api/pkce.go, models/flow_state.go).

A client that sends `code_challenge` + `code_challenge_method` starts a flow: a row of
auth.flow_state holding the challenge. Mailed links of such a flow carry a `pkce_`-prefixed
token; opening one (GET /verify) or coming back from a provider (/callback) redirects with
`?code=<auth_code>` instead of tokens, and POST /token?grant_type=pkce exchanges that code
once, with the verifier whose hash is the challenge.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import uuid
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import mail, sessions
from server.auth.db import in_transaction
from server.auth.errors import AuthError, bad_request, not_found, unprocessable
from server.auth.http import Body, json_response, read_body
from server.auth.models import flow_state
from server.auth.models.users import user_by_id
from server.auth.service import AuthService
from server.auth.session_tokens import issue_session

TOKEN_PREFIX = "pkce_"
MIN_CHALLENGE, MAX_CHALLENGE = 43, 128
_CHALLENGE = re.compile(r"[a-zA-Z._~0-9-]+")
INVALID_PARAMS = "PKCE flow requires code_challenge_method and code_challenge"
BAD_VERIFIER = "code challenge does not match previously saved code verifier"
# Authentication methods of flows started by a mailed link: at the session limit their
# exchange ends the least recently used session, as opening the link does (verify.py).
MAILED_METHODS = ("email/signup", "recovery", "magiclink", "invite", "email_change")
# Auth codes are UUIDs; anything much longer is not one (and is not looked up).
_MAX_AUTH_CODE = 64


@dataclass(frozen=True)
class Challenge:
    challenge: str
    method: str  # "s256" or "plain", as stored


def parse_challenge(challenge: str, method: str) -> Challenge | None:
    """GoTrue's validatePKCEParams: both or neither (None: the implicit flow)."""
    if bool(challenge) != bool(method):
        raise bad_request(codes.VALIDATION_FAILED, INVALID_PARAMS)
    if not challenge:
        return None
    if not MIN_CHALLENGE <= len(challenge) <= MAX_CHALLENGE:
        raise bad_request(codes.VALIDATION_FAILED,
                          f"code challenge has to be between {MIN_CHALLENGE} and {MAX_CHALLENGE} characters")
    if not _CHALLENGE.fullmatch(challenge):
        raise bad_request(codes.VALIDATION_FAILED, "code challenge can only contain alphanumeric characters,"
                                                   " hyphens, periods, underscores and tildes")
    normalized = method.lower()
    if normalized not in ("s256", "plain"):
        raise bad_request(codes.VALIDATION_FAILED, "Invalid code_challenge_method")
    return Challenge(challenge, normalized)


def challenge_from_body(body: Body) -> Challenge | None:
    return parse_challenge(body.text("code_challenge"), body.text("code_challenge_method"))


def challenge_from_query(request: Request) -> Challenge | None:
    query = request.query_params
    return parse_challenge(query.get("code_challenge", ""), query.get("code_challenge_method", ""))


def verifier_matches(flow: dict[str, Any], verifier: str) -> bool:
    """The verifier against the stored challenge, in constant time (FlowState.VerifyPKCE)."""
    challenge = flow["code_challenge"] or ""
    if flow["code_challenge_method"] == "s256":
        digest = hashlib.sha256(verifier.encode()).digest()
        expected = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    elif flow["code_challenge_method"] == "plain":
        expected = verifier
    else:
        return False
    return hmac.compare_digest(challenge.encode(), expected.encode())


async def _sweep(expiry: float, conn: AsyncConnection) -> None:
    """Flow states nothing can use any more. GoTrue's cleanup deletes a flow state once it is a
    day old, so 200 calls to /authorize keep 200 rows for a day; here an OAuth flow goes once
    GOTRUE_EXTERNAL_FLOW_STATE_EXPIRY_DURATION is over (its callback and its code exchange
    refuse it from then on), and a mailed link's flow once the link has expired and, for a
    magic link opened meanwhile, once its code has too."""
    await flow_state.sweep(conn, expiry, max(expiry, mail.OTP_EXPIRY_SECONDS))


async def create(conn: AsyncConnection, expiry: float, *, provider_type: str, auth_method: str,
                 challenge: Challenge | None, user_id: uuid.UUID | None = None, referrer: str | None = None,
                 linking_target_id: uuid.UUID | None = None, invite_token: str | None = None) -> dict[str, Any]:
    """A new flow (PKCE when `challenge` is given: it then has an auth code); the row."""
    await _sweep(expiry, conn)
    return await flow_state.insert(
        conn, user_id=user_id, auth_code=str(uuid.uuid4()) if challenge else None,
        code_challenge_method=challenge.method if challenge else None,
        code_challenge=challenge.challenge if challenge else None, provider_type=provider_type,
        auth_method=auth_method, referrer=referrer or None, linking_target_id=linking_target_id,
        invite_token=invite_token or None)


async def start(conn: AsyncConnection, expiry: float, challenge: Challenge | None, *, user_id: uuid.UUID,
                auth_method: str, provider_type: str) -> str:
    """For a mailed link: the flow when PKCE; the prefix of the mailed token ("" when implicit)."""
    if challenge is None:
        return ""
    await create(conn, expiry, provider_type=provider_type, auth_method=auth_method, challenge=challenge,
                 user_id=user_id)
    return TOKEN_PREFIX


def link_method(verify_type: str) -> str:
    """The flow's authentication method for a /verify type (ParseAuthenticationMethod)."""
    return "email/signup" if verify_type.endswith("signup") else verify_type


async def issue_auth_code(conn: AsyncConnection, user_id: uuid.UUID, auth_method: str) -> str:
    """The auth code of the user's latest flow of this method, marked issued (issueAuthCode)."""
    auth_code = await flow_state.issue_latest_code(conn, user_id, auth_method)
    if auth_code is None:
        raise bad_request(codes.FLOW_STATE_NOT_FOUND, "No associated flow state found. No valid flow state found for user.")
    return auth_code


def with_query(url: str, **params: str) -> str:
    """`url` with `params` set in its query (Go's u.Query(); q.Set(); u.RawQuery = q.Encode())."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in params]
    query += list(params.items())
    return urlunsplit(parts._replace(query=urlencode(sorted(query))))


def code_redirect(url: str, auth_code: str) -> str:
    """prepPKCERedirectURL: the redirect target with ?code=."""
    return with_query(url, code=auth_code)


async def pkce_grant(svc: AuthService, request: Request) -> Response:
    """POST /token?grant_type=pkce {auth_code, code_verifier}: the flow's session, once."""
    await svc.limiter.check("token_refresh", request)
    body = await read_body(request)
    auth_code, verifier = body.text("auth_code"), body.text("code_verifier")
    if not auth_code or not verifier:
        raise bad_request(codes.VALIDATION_FAILED,
                          "invalid request: both auth code and code verifier should be non-empty")
    ctx = svc.ctx
    expiry = ctx.settings.flow_state_expiry

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        flow = None
        if len(auth_code) <= _MAX_AUTH_CODE:
            flow = await flow_state.by_auth_code(conn, auth_code, expiry)
        if flow is None or flow["user_id"] is None:
            raise not_found(codes.FLOW_STATE_NOT_FOUND, "invalid flow state, no valid flow state found")
        if flow["expired"]:
            raise unprocessable(codes.FLOW_STATE_EXPIRED, "invalid flow state, flow state has expired")
        user = await user_by_id(conn, flow["user_id"])
        if user is None:
            raise not_found(codes.FLOW_STATE_NOT_FOUND, "invalid flow state, no valid flow state found")
        if not verifier_matches(flow, verifier):
            raise bad_request(codes.BAD_CODE_VERIFIER, BAD_VERIFIER)
        method = flow["authentication_method"]
        if method in MAILED_METHODS:
            await sessions.evict_least_recently_used(ctx, conn, user["id"])
        # Single use: the flow goes with the session it opens.
        await flow_state.delete(conn, flow["id"])
        session = await issue_session(ctx, conn, request, user, method)
        if flow["provider_access_token"]:
            session["provider_token"] = flow["provider_access_token"]
        if flow["provider_refresh_token"]:
            session["provider_refresh_token"] = flow["provider_refresh_token"]
        return session

    return json_response(request, await in_transaction(ctx, work, "Database error granting user"))


def error_redirect(url: str, err: AuthError, *, in_query: bool) -> str:
    """A redirect carrying `err` as GoTrue's prepErrorRedirectURL / redirectErrors do: in the
    fragment (with `sb`, Supabase Auth's marker), and in the query too when `in_query`."""
    error = oauth_error_name(err)
    details = {"error": error, "error_code": err.code, "error_description": err.message}
    if err.oauth:
        details = {"error": err.oauth, "error_description": err.message}
    parts = urlsplit(url)
    if in_query:
        parts = urlsplit(with_query(url, **details))
    fragment = urlencode(sorted({**details, "sb": ""}.items()))
    return urlunsplit(parts._replace(fragment=fragment))


_OAUTH_ERRORS = {400: "invalid_request", 401: "unauthorized_client", 403: "access_denied", 500: "server_error",
                 503: "temporarily_unavailable"}
_ACCESS_DENIED = (codes.SIGNUP_DISABLED, codes.USER_BANNED, codes.PROVIDER_EMAIL_NEEDS_VERIFICATION)


def oauth_error_name(err: AuthError) -> str:
    """GoTrue's getErrorQueryString: the OAuth `error` of an error."""
    if err.oauth:
        return err.oauth
    if err.code in _ACCESS_DENIED:
        return "access_denied"
    return _OAUTH_ERRORS.get(err.status, "server_error")
