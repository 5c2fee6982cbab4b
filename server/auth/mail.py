"""Auth mails (confirmation, recovery, magic link, email change, invite, reauthentication).

Their subjects and bodies are GoTrue's templates, or a project's (server.auth.mail_templates).

Each mail carries a 6-digit code and a link to GET /auth/v1/verify; the user row keeps only
the token hash (sha224 of email + code, as GoTrue stores it). Mails go to the SMTP server of
SUPALITE_SMTP_URL when set; else, on a dev server only (the demo JWT secret, or --dev), to the
dev inbox table read at /inbox. A server with neither cannot send mail: as Supabase's built-in
mailer does for addresses it may not write to, every request that would mail answers 400
`email_address_not_authorized` (before looking the address up: nothing about accounts leaks),
and sign-ins that need no mail (password, anonymous, admin-created users) work as usual.
"""

from __future__ import annotations

import hashlib
import secrets
import smtplib
import sys
from email.message import EmailMessage
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlencode, urlsplit

import anyio
from psycopg import AsyncConnection

from server.auth import error_codes as codes
from server.auth import mail_templates, redirects
from server.auth.errors import bad_request
from server.auth.mail_templates import MailTemplates
from server.auth.models import dev_inbox, users
from server.core.config import Settings
from server.core.context import AppContext

OTP_LENGTH = 6
OTP_EXPIRY_SECONDS = 3600

def inbox_enabled(settings: Settings) -> bool:
    """The dev inbox exists only on a dev server without SMTP: elsewhere anyone could read the
    codes mailed to any address there, and sign in as its owner."""
    return not settings.smtp_url and (settings.dev or settings.uses_demo_secret)


def can_send(settings: Settings) -> bool:
    return bool(settings.smtp_url) or inbox_enabled(settings)


def require_delivery(ctx: AppContext, email: str) -> None:
    """Refuse, before any lookup, a request that would mail `email` when no mail can be sent."""
    if not can_send(ctx.settings):
        raise bad_request(codes.EMAIL_ADDRESS_NOT_AUTHORIZED,
                          f'Email address "{email}" cannot be used as it is not authorized:'
                          " this server has no SMTP server (SUPALITE_SMTP_URL) to send mail")


def startup_line(settings: Settings) -> str:
    """Where auth mails go, in one line for `supalite serve`."""
    if settings.smtp_url:
        parts = urlsplit(settings.smtp_url)  # printed without its credentials
        port = f":{parts.port}" if parts.port else ""
        return f"supalite: auth mails are sent through {parts.scheme}://{parts.hostname}{port}"
    if inbox_enabled(settings):
        return f"supalite: auth mails go to the dev inbox at {settings.api_url}/inbox"
    confirmations = "" if settings.mailer_autoconfirm else " and sign-ups (GOTRUE_MAILER_AUTOCONFIRM=false)"
    return ("supalite: no SMTP server (SUPALITE_SMTP_URL): auth mails cannot be sent; password recovery,"
            f" magic links, e-mail changes{confirmations} answer 400 email_address_not_authorized")


def new_otp(length: int = OTP_LENGTH) -> str:
    """A one-time code of `length` random digits (mails' 6; SMS codes have their setting)."""
    return "".join(secrets.choice("0123456789") for _ in range(length))


def token_hash(email: str, otp: str) -> str:
    return hashlib.sha224((email + otp).encode()).hexdigest()


def site_url(ctx: AppContext) -> str:
    return (ctx.settings.site_url or ctx.settings.api_url).rstrip("/")


def redirect_target(ctx: AppContext, requested: str | None) -> str:
    """`redirect_to` when GoTrue's rules allow it (the site URL, GOTRUE_URI_ALLOW_LIST: see
    redirects.py), else the site URL (no open redirect)."""
    if requested and redirects.is_redirect_url_valid(site_url(ctx), ctx.settings.uri_allow_list, requested):
        return requested
    return site_url(ctx)


def verify_link(ctx: AppContext, hashed: str, kind: str, redirect_to: str) -> str:
    query = urlencode({"token": hashed, "type": kind, "redirect_to": redirect_to}, quote_via=quote)
    return f"{ctx.settings.api_url}/auth/v1/verify?{query}"


def templates(settings: Settings) -> MailTemplates:
    """The server's mail templates, read once per process (`check_templates` read them at start)."""
    key = (*(getattr(settings, name) for name in _TEMPLATE_SETTINGS), settings.project_dir)
    found = _loaded.get(key)
    if found is None:
        found = _loaded[key] = mail_templates.load(settings)
    return found


_TEMPLATE_SETTINGS = ("mail_templates_dir", *(f"mailer_{part}_{kind}" for part in ("subjects", "templates")
                                                for kind in mail_templates.TYPES))
_loaded: dict[tuple[object, ...], MailTemplates] = {}


def check_templates(settings: Settings) -> None:
    """At `supalite serve`: every template read and parsed (ConfigError otherwise); warnings said."""
    for line in templates(settings).warnings:
        print(f"supalite: warning: {line}", file=sys.stderr, flush=True)


def render(ctx: AppContext, kind: str, data: dict[str, Any]) -> tuple[str, str, str]:
    """(subject, text, html) of a mail of `kind` (signup, recovery, magiclink, ...)."""
    return templates(ctx.settings).render(kind, data)


async def _template_data(ctx: AppContext, conn: AsyncConnection, user_id: Any, otp: str, link: str) -> dict[str, Any]:
    """GoTrue's template variables: the link's token and redirect, the user's addresses and metadata."""
    query = parse_qs(urlsplit(link).query)
    email, new_email, data = await users.addresses_and_metadata(conn, user_id)
    return {"SiteURL": site_url(ctx), "ConfirmationURL": link, "Email": email or "", "NewEmail": new_email or "",
            "Token": otp, "TokenHash": query.get("token", [""])[0], "RedirectTo": query.get("redirect_to", [""])[0],
            "Data": data or {}}


async def send(ctx: AppContext, conn: AsyncConnection, *, to: str, kind: str, otp: str, link: str,
               user_id: Any) -> None:
    """Deliver an auth mail (inside the caller's transaction, so a failed request sends nothing)."""
    require_delivery(ctx, to)
    templates_ = await anyio.to_thread.run_sync(templates, ctx.settings)  # a URL template is fetched once
    subject, text, body = templates_.render(kind, await _template_data(ctx, conn, user_id, otp, link))
    if ctx.settings.smtp_url:
        await anyio.to_thread.run_sync(_smtp_send, ctx.settings.smtp_url, to, subject, text, body)
        return
    await dev_inbox.insert(conn, recipient=to, subject=subject, kind=kind, otp=otp, link=link, text_body=text,
                           html_body=body)


def _smtp_send(url: str, to: str, subject: str, text: str, body: str) -> None:
    parts = urlsplit(url)
    message = EmailMessage()
    message["Subject"] = subject
    message["From"] = f"noreply@{parts.hostname or 'localhost'}"
    message["To"] = to
    message.set_content(text)
    message.add_alternative(body, subtype="html")
    secure = parts.scheme == "smtps"
    client_cls = smtplib.SMTP_SSL if secure else smtplib.SMTP
    with client_cls(parts.hostname or "localhost", parts.port or (465 if secure else 25), timeout=10) as client:
        if not secure and parts.port == 587:
            client.starttls()
        if parts.username:
            client.login(unquote(parts.username), unquote(parts.password or ""))
        client.send_message(message)
