"""Auth mails (confirmation, recovery, magic link, email change, invite).

Each mail carries a 6-digit code and a link to GET /auth/v1/verify; the user row keeps only
the token hash (sha224 of email + code, as GoTrue stores it). Mails go to the dev inbox table
(read at /inbox) or, when SUPALITE_SMTP_URL is set, to that SMTP server.
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

from server.context import AppContext

OTP_LENGTH = 6
OTP_EXPIRY_SECONDS = 3600

_TEMPLATES = {
    # kind: (subject, heading, sentence, link text)
    "signup": ("Confirm Your Signup", "Confirm your signup", "Follow this link to confirm your user:", "Confirm your mail"),
    "recovery": ("Reset Your Password", "Reset Password", "Follow this link to reset the password for your user:", "Reset Password"),
    "magiclink": ("Your Magic Link", "Magic Link", "Follow this link to login:", "Log In"),
    "email_change": ("Confirm Email Change", "Confirm Change of Email", "Follow this link to confirm the update of your email:", "Change Email"),
    "invite": ("You have been invited", "You have been invited", "You have been invited to create a user. Follow this link to accept the invite:", "Accept the invite"),
}


def new_otp() -> str:
    return "".join(secrets.choice("0123456789") for _ in range(OTP_LENGTH))


def token_hash(email: str, otp: str) -> str:
    return hashlib.sha224((email + otp).encode()).hexdigest()


def site_url(ctx: AppContext) -> str:
    return (ctx.settings.site_url or ctx.settings.api_url).rstrip("/")


def redirect_target(ctx: AppContext, requested: str | None) -> str:
    """`redirect_to` when it points at the site or this server, else the site URL (no open redirect)."""
    if requested:
        wanted = urlsplit(requested)
        for allowed in (site_url(ctx), ctx.settings.api_url):
            base = urlsplit(allowed)
            if (wanted.scheme, wanted.netloc) == (base.scheme, base.netloc):
                return requested
    return site_url(ctx)


def verify_link(ctx: AppContext, hashed: str, kind: str, redirect_to: str) -> str:
    query = urlencode({"token": hashed, "type": kind, "redirect_to": redirect_to}, quote_via=quote)
    return f"{ctx.settings.api_url}/auth/v1/verify?{query}"


def render(kind: str, otp: str, link: str) -> tuple[str, str, str]:
    subject, heading, sentence, link_text = _TEMPLATES[kind]
    text = f"{heading}\n\n{sentence}\n{link}\n\nAlternatively, enter the code: {otp}\n"
    body = (f"<h2>{html.escape(heading)}</h2><p>{html.escape(sentence)}</p>"
            f'<p><a href="{html.escape(link)}">{html.escape(link_text)}</a></p>'
            f"<p>Alternatively, enter the code: {html.escape(otp)}</p>")
    return subject, text, body


async def send(ctx: AppContext, conn: AsyncConnection, *, to: str, kind: str, otp: str, link: str) -> None:
    """Deliver an auth mail (inside the caller's transaction, so a failed request sends nothing)."""
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
