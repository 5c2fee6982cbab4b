"""/admin/users (list, create, get, update, delete) and /admin/generate_link, for service_role."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode

from psycopg import AsyncConnection
from starlette.requests import Request
from starlette.responses import Response

from server.auth import error_codes as codes
from server.auth import mail, metadata, passwords
from server.auth.db import in_transaction
from server.auth.errors import bad_request, go_quote, not_found, unprocessable
from server.auth.http import Body, json_response, path_uuid, read_body
from server.auth.models import identities as identity_rows
from server.auth.models import one_time_tokens, users
from server.auth.models import sessions as session_rows
from server.auth.models.users import (
    AUDIENCE,
    DUPLICATE_EMAIL,
    UserRow,
    confirm_email,
    create_user,
    user_by_email,
    user_by_id,
    user_json,
    written_user,
)
from server.auth.service import AuthService, validate_email
from server.auth.user import merge_metadata
from server.core.context import AppContext

USER_NOT_FOUND = "User not found"
DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 1000
# Go's time.ParseDuration: its units in nanoseconds, and the bound of an int64 of them.
_GO_UNITS = {"ns": 1, "us": 1_000, "\u00b5s": 1_000, "\u03bcs": 1_000, "ms": 1_000_000, "s": 10**9, "m": 60 * 10**9,
             "h": 3600 * 10**9}
_GO_MAX = 1 << 63
MAX_DURATION_TEXT = 256  # longer is refused before it is read


class GoDurationError(ValueError):
    """time.ParseDuration's error, with its text."""


def _go_quote(text: str) -> str:
    """Go's time.quote: non-ASCII and control bytes as \\xNN, `"` and `\\` escaped."""
    out = ['"']
    for c in text:
        if ord(c) >= 0x80 or c < " ":
            out.extend(f"\\x{b:02x}" for b in c.encode())
        else:
            out.append("\\" + c if c in '"\\' else c)
    return "".join(out) + '"'


def parse_go_duration(text: str) -> int:
    """Go's time.ParseDuration, in nanoseconds: `[-+]?([0-9]*(\\.[0-9]*)?[a-z]+)+`, "0", and the
    same errors (an int64 of nanoseconds bounds it, about 292 years)."""
    if len(text) > MAX_DURATION_TEXT:  # not echoed whole
        raise GoDurationError(f"time: invalid duration {_go_quote(text[:MAX_DURATION_TEXT])}...")
    invalid = GoDurationError(f"time: invalid duration {_go_quote(text)}")
    rest, negative = text, False
    if rest[:1] in ("-", "+"):
        negative, rest = rest[0] == "-", rest[1:]
    if rest == "0":
        return 0
    if not rest:
        raise invalid
    total = 0
    while rest:
        if not (rest[0] == "." or "0" <= rest[0] <= "9"):
            raise invalid
        digits = len(rest) - len(rest.lstrip("0123456789"))
        whole_text, rest = rest[:digits], rest[digits:]
        if whole_text and int(whole_text) > _GO_MAX:  # leadingInt's overflow
            raise invalid
        whole = int(whole_text) if whole_text else 0
        fraction_text = ""
        if rest[:1] == ".":
            rest = rest[1:]
            count = len(rest) - len(rest.lstrip("0123456789"))
            fraction_text, rest = rest[:count], rest[count:]
        if not whole_text and not fraction_text:
            raise invalid  # no digits, e.g. ".s"
        unit_length = 0
        while unit_length < len(rest) and not (rest[unit_length] == "." or "0" <= rest[unit_length] <= "9"):
            unit_length += 1
        if unit_length == 0:
            raise GoDurationError(f"time: missing unit in duration {_go_quote(text)}")
        unit_text, rest = rest[:unit_length], rest[unit_length:]
        unit = _GO_UNITS.get(unit_text)
        if unit is None:
            raise GoDurationError(f"time: unknown unit {_go_quote(unit_text)} in duration {_go_quote(text)}")
        if whole > _GO_MAX // unit:
            raise invalid
        value = whole * unit
        if fraction_text.strip("0"):
            # leadingFraction keeps the digits that fit an int64; the product is a float64.
            kept = fraction_text[:18]
            value += int(int(kept) * (unit / 10 ** len(kept)))
            if value > _GO_MAX:
                raise invalid
        total += value
        if total > _GO_MAX:
            raise invalid
    if not negative and total > _GO_MAX - 1:
        raise invalid
    return -total if negative else total


def parse_ban_duration(value: str) -> timedelta | None:
    """adminUserUpdate's ban_duration: "none" or a Go duration; 400 with Go's error otherwise
    (never an overflow: Go's int64 bound holds well inside timedelta and timestamptz). None
    lifts the ban, as a zero duration does in GoTrue's User.Ban."""
    if value == "none":
        return None
    try:
        nanoseconds = parse_go_duration(value)
    except GoDurationError as exc:
        raise bad_request(codes.VALIDATION_FAILED, f"invalid format for ban duration: {exc}") from None
    if nanoseconds == 0:
        return None
    return timedelta(microseconds=nanoseconds // 1000 if nanoseconds > 0 else -(-nanoseconds // 1000))


def _page_number(name: str, text: str, default: int, maximum: int, too_large: str) -> int:
    """GoTrue's Paginate for one parameter: strconv.ParseUint, then its bounds."""
    if text == "":
        return default
    if not (text.isascii() and text.isdigit()):
        raise ValueError(f"strconv.ParseUint: parsing {go_quote(text)}: invalid syntax")
    if len(text.lstrip("0")) > 20 or int(text) > 2**64 - 1:
        raise ValueError(f"strconv.ParseUint: parsing {go_quote(text)}: value out of range")
    value = int(text)
    if value == 0:
        raise ValueError(f"{name} must be greater than 0")
    if value > maximum:
        raise ValueError(too_large)
    return value


def paginate(request: Request) -> tuple[int, int]:
    """(page, per_page) of `page` and `per_page`, as GoTrue's shared.Paginate reads them: a
    negative, zero, non-numeric or too large value is 400 "Bad Pagination Parameters"."""
    params = request.query_params
    first = {key: params.getlist(key)[0] if params.getlist(key) else "" for key in ("page", "per_page")}
    try:
        page = _page_number("page", first["page"], 1, 2**31 - 1, "page exceeds maximum allowed value")
        per_page = _page_number("per_page", first["per_page"], DEFAULT_PER_PAGE, MAX_PER_PAGE,
                                f"per_page must not exceed {MAX_PER_PAGE}")
    except ValueError as exc:
        raise bad_request(codes.VALIDATION_FAILED, f"Bad Pagination Parameters: {exc}") from None
    return page, per_page


def pagination_headers(ctx: AppContext, path: str, page: int, per_page: int, total: int) -> dict[str, str]:
    """X-Total-Count and Link (next, last), which auth-js and supabase-py read."""
    base = f"{ctx.settings.api_url}/auth/v1/{path}"
    last = max(1, -(-total // per_page))
    links = []
    if page < last:
        links.append(f'<{base}?{urlencode({"page": page + 1, "per_page": per_page})}>; rel="next"')
    links.append(f'<{base}?{urlencode({"page": last, "per_page": per_page})}>; rel="last"')
    return {"X-Total-Count": str(total), "Link": ", ".join(links)}


async def list_users(svc: AuthService, request: Request) -> Response:
    page, per_page = paginate(request)
    pattern = "%" + (request.query_params.get("filter") or "") + "%"

    async def work(conn: AsyncConnection) -> tuple[int, list[UserRow]]:
        total = await users.count_matching(conn, pattern)
        return total, await users.page_matching(conn, pattern, per_page, (page - 1) * per_page)

    total, rows = await in_transaction(svc.ctx, work)
    headers = pagination_headers(svc.ctx, "admin/users", page, per_page, total)
    return json_response(request, {"users": [user_json(r) for r in rows], "aud": AUDIENCE}, headers=headers)


async def get_user(svc: AuthService, request: Request) -> Response:
    user_id = path_uuid(request, "user_id")
    user = await in_transaction(svc.ctx, lambda conn: user_by_id(conn, user_id))
    if user is None:
        raise not_found(codes.USER_NOT_FOUND, USER_NOT_FOUND)
    return json_response(request, user_json(user))


def _check_metadata(body: Body) -> None:
    metadata.check("user_metadata", body.obj("user_metadata"))
    metadata.check("app_metadata", body.obj("app_metadata"))


async def create(svc: AuthService, request: Request) -> Response:
    body = await read_body(request)
    _check_metadata(body)
    email, password = body.text("email"), body.opt_text("password")
    if body.text("phone"):
        raise bad_request(codes.PHONE_PROVIDER_DISABLED, "Phone provider is disabled")
    if not email:
        raise bad_request(codes.VALIDATION_FAILED, "Cannot create a user without either an email or phone")
    email = validate_email(email)
    if password:  # GoTrue checks a given one; without, the user gets no password
        passwords.check_strength(svc.ctx.settings, password)
    ban = parse_ban_duration(body.text("ban_duration")) if body.text("ban_duration") else None
    password_hash = await passwords.hash_password(password) if password else None
    app_meta = {"provider": "email", "providers": ["email"], **(body.obj("app_metadata") or {})}

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        if await user_by_email(conn, email) is not None:
            raise unprocessable(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
        user_id = await create_user(conn, email=email, password_hash=password_hash,
                                    user_meta=body.obj("user_metadata") or {}, app_meta=app_meta, exact_metadata=True)
        await _apply_admin_fields(conn, user_id, body, ban)
        return user_json(await written_user(conn, user_id))

    return json_response(request, await in_transaction(svc.ctx, work, "Database error creating new user"))


async def _apply_admin_fields(conn: AsyncConnection, user_id: uuid.UUID, body: Body, ban: timedelta | None) -> None:
    if body.flag("email_confirm"):
        await confirm_email(conn, user_id)
    if body.has("ban_duration") and body.text("ban_duration"):
        await users.ban(conn, user_id, ban)
        if ban is not None and ban > timedelta(0):  # a banned user's sessions end now
            await session_rows.delete_of_user(conn, user_id)
    if body.text("role"):
        await users.set_role(conn, user_id, body.text("role"))


async def update(svc: AuthService, request: Request) -> Response:
    user_id = path_uuid(request, "user_id")
    body = await read_body(request)
    _check_metadata(body)
    email, password = body.text("email"), body.opt_text("password")
    if email:
        email = validate_email(email)
    if password is not None:
        passwords.check_strength(svc.ctx.settings, password)
    ban = parse_ban_duration(body.text("ban_duration")) if body.text("ban_duration") else None
    password_hash = await passwords.hash_password(password) if password else None

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        user = await user_by_id(conn, user_id, lock=True)
        if user is None:
            raise not_found(codes.USER_NOT_FOUND, USER_NOT_FOUND)
        if email and email != (user["email"] or "").lower():
            if await user_by_email(conn, email) is not None:
                raise unprocessable(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
            await users.set_email(conn, user_id, email)
            await identity_rows.set_email(conn, user_id, email)
        if password_hash:
            await users.set_password(conn, user_id, password_hash)
        metadata_columns = (("user_metadata", "raw_user_meta_data", user["raw_user_meta_data"]),
                            ("app_metadata", "raw_app_meta_data", user["raw_app_meta_data"]))
        for key, column, current in metadata_columns:
            changes = body.obj(key)
            if changes is not None:
                merged = merge_metadata(current, changes)
                metadata.check_merged(key, current, merged)
                await users.update_metadata_column(conn, user_id, column, merged)
        await _apply_admin_fields(conn, user_id, body, ban)
        return user_json(await written_user(conn, user_id))

    return json_response(request, await in_transaction(svc.ctx, work, "Database error updating user"))


async def delete(svc: AuthService, request: Request) -> Response:
    user_id = path_uuid(request, "user_id")
    body = await read_body(request, allow_empty=True)
    soft = body.flag("should_soft_delete")

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        user = await user_by_id(conn, user_id, lock=True)
        if user is None:
            raise not_found(codes.USER_NOT_FOUND, USER_NOT_FOUND)
        if soft:
            await session_rows.delete_of_user(conn, user_id)
            await identity_rows.delete_of_user(conn, user_id)
            await users.soft_delete(conn, user_id)
        else:
            await users.delete(conn, user_id)
        return user_json(user)

    return json_response(request, await in_transaction(svc.ctx, work, "Database error deleting user"))


LINK_TYPES = ("signup", "invite", "magiclink", "recovery", "email_change_current", "email_change_new")


async def generate_link(svc: AuthService, request: Request) -> Response:
    """A verification link and code without sending a mail (for custom mailers)."""
    ctx = svc.ctx
    body = await read_body(request)
    kind = body.text("type")
    email = validate_email(body.text("email"))
    if kind not in LINK_TYPES:
        raise bad_request(codes.VALIDATION_FAILED, f"Invalid email action link type requested: {kind}")
    password = body.opt_text("password")
    if kind == "signup":
        if not password:
            raise bad_request(codes.VALIDATION_FAILED, "Signup requires a valid password")
        passwords.check_strength(ctx.settings, password)
    new_email = validate_email(body.text("new_email")) if kind.startswith("email_change") else ""
    password_hash = await passwords.hash_password(password) if kind == "signup" and password else None
    redirect_to = mail.redirect_target(ctx, body.opt_text("redirect_to") or request.query_params.get("redirect_to"))
    data = body.obj("data") or {}
    metadata.check("user_metadata", data)

    async def work(conn: AsyncConnection) -> dict[str, Any]:
        user = await user_by_email(conn, email, lock=True)
        if kind in ("signup", "invite"):
            if user is not None and user["email_confirmed_at"] is not None:
                raise unprocessable(codes.EMAIL_EXISTS, DUPLICATE_EMAIL)
            if user is None:
                user_id = await create_user(conn, email=email, password_hash=password_hash, user_meta=data,
                                            app_meta={"provider": "email", "providers": ["email"]},
                                            invited=kind == "invite", exact_metadata=True)
                user = await written_user(conn, user_id)
            elif kind == "signup" and data:  # GoTrue updates an unconfirmed user's metadata
                merged = merge_metadata(user["raw_user_meta_data"], data)
                metadata.check_merged("user_metadata", user["raw_user_meta_data"], merged)
                await users.update_user_metadata(conn, user["id"], merged)
            if kind == "invite":  # a new link re-invites
                await users.mark_invited(conn, user["id"])
        elif user is None:
            raise not_found(codes.USER_NOT_FOUND, "User with this email not found")
        otp = mail.new_otp()
        target = new_email or email
        hashed = mail.token_hash(target, otp)
        if kind in ("signup", "invite"):
            column, sent, token_type, verify_type = "confirmation_token", "confirmation_sent_at", "confirmation_token", kind
        elif kind.startswith("email_change"):
            column, sent = "email_change_token_new", "email_change_sent_at"
            token_type, verify_type = "email_change_token_new", "email_change"
            await users.set_email_change(conn, user["id"], new_email)
        else:
            column, sent, token_type, verify_type = "recovery_token", "recovery_sent_at", "recovery_token", kind
        await users.set_code(conn, user["id"], column, sent, hashed)
        await one_time_tokens.save(conn, user["id"], token_type, hashed, target)
        user = await written_user(conn, user["id"])
        return {**user_json(user), "action_link": mail.verify_link(ctx, hashed, verify_type, redirect_to),
                "email_otp": otp, "hashed_token": hashed, "verification_type": verify_type,
                "redirect_to": redirect_to}

    return json_response(request, await in_transaction(ctx, work, "Database error generating link"))

