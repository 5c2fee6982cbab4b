"""The confirmation mail of an e-mail address: its code kept on the user, the mail sent."""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

from server.auth import mail
from server.auth.models import one_time_tokens, users
from server.auth.service import AuthService


async def send(svc: AuthService, conn: AsyncConnection, user_id: Any, email: str, redirect_to: str, *,
               prefix: str = "") -> None:
    """The confirmation mail; `prefix` is pkce.TOKEN_PREFIX for a PKCE flow's link."""
    otp = mail.new_otp()
    hashed = prefix + mail.token_hash(email, otp)
    await users.set_code(conn, user_id, "confirmation_token", "confirmation_sent_at", hashed)
    await one_time_tokens.save(conn, user_id, "confirmation_token", hashed, email)
    await mail.send(svc.ctx, conn, to=email, kind="signup", otp=otp,
                    link=mail.verify_link(svc.ctx, hashed, "signup", redirect_to), user_id=user_id)
