"""Auth mails (confirmation, recovery, magic link, email change, invite).

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
import html
import secrets
import smtplib
from email.message import EmailMessage
from urllib.parse import quote, unquote, urlencode, urlsplit

import anyio
from psycopg import AsyncConnection

from server.auth import error_codes as codes
from server.auth import redirects
from server.auth.errors import bad_request
from server.config import Settings
from server.context import AppContext

OTP_LENGTH = 6
OTP_EXPIRY_SECONDS = 3600

_TEMPLATES = {
    # kind: (subject, heading, sentence, link text)
    "signup": ("Confirm Your Signup", "Confirm your signup", "Follow this link to confirm your user:", "Confirm your mail"),
    "recovery": ("Reset Your Password", "Reset Password", "Follow this link to reset the password for your user:", "Reset Password"),
    "magiclink": ("Your Magic Link", "Magic Link", "Follow this link to login:", "Log In"),
    "email_change": ("Confirm Email Change", "Confirm Change of Email",
                     "Follow this link to confirm the update of your email:", "Change Email"),
    "invite": ("You have been invited", "You have been invited",
               "You have been invited to create a user. Follow this link to accept the invite:", "Accept the invite"),
    # GoTrue's reauthentication mail carries only the code (no link).
    "reauthentication": ("Confirm reauthentication", "Confirm reauthentication", "Enter the code:", ""),
}


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


def render(kind: str, otp: str, link: str) -> tuple[str, str, str]:
    subject, heading, sentence, link_text = _TEMPLATES[kind]
    if not link:
        return subject, f"{heading}\n\n{sentence} {otp}\n", (
            f"<h2>{html.escape(heading)}</h2><p>{html.escape(sentence)} {html.escape(otp)}</p>")
    text = f"{heading}\n\n{sentence}\n{link}\n\nAlternatively, enter the code: {otp}\n"
    body = (f"<h2>{html.escape(heading)}</h2><p>{html.escape(sentence)}</p>"
            f'<p><a href="{html.escape(link)}">{html.escape(link_text)}</a></p>'
            f"<p>Alternatively, enter the code: {html.escape(otp)}</p>")
    return subject, text, body


async def send(ctx: AppContext, conn: AsyncConnection, *, to: str, kind: str, otp: str, link: str) -> None:
    """Deliver an auth mail (inside the caller's transaction, so a failed request sends nothing)."""
    require_delivery(ctx, to)
    subject, text, body = render(kind, otp, link)
    if ctx.settings.smtp_url:
        await anyio.to_thread.run_sync(_smtp_send, ctx.settings.smtp_url, to, subject, text, body)
        return
    await conn.execute(
        "insert into auth.dev_inbox (recipient, subject, kind, otp, link, text_body, html_body)"
        " values (%s, %s, %s, %s, %s, %s, %s)", [to, subject, kind, otp, link, text, body])


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
