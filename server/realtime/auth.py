"""Who a channel acts as (its JWT, checked with Realtime's messages) and what a private
channel may do, decided by the RLS policies on realtime.messages."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jwt as pyjwt
import psycopg
from psycopg_pool import AsyncConnectionPool

from server.auth.jwt import JwtError, JwtKeys
from server.db.request_context import RequestContext, context_sql


class ChannelError(Exception):
    """A refusal with Realtime's `Code: message` reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def reason(self) -> str:
        return f"{self.code}: {self.message}"


def verify_token(keys: JwtKeys, token: Any) -> dict[str, Any]:
    """Claims of a channel token; raises ChannelError with the message Realtime sends."""
    if not isinstance(token, str) or not token.strip():
        raise ChannelError("MalformedJWT", "The token provided is not a valid JWT")
    token = "".join(token.split())
    try:
        claims = keys.decode(token)
    except JwtError as exc:
        if str(exc) == "JWT expired":
            exp = pyjwt.decode(token, options={"verify_signature": False}).get("exp", 0)
            raise ChannelError("InvalidJWTToken", f"Token has expired {int(time.time()) - int(exp)} seconds ago") from None
        if "ignature" in str(exc):
            raise ChannelError("JwtSignatureError", "Failed to validate JWT signature") from None
        raise ChannelError("MalformedJWT", "The token provided is not a valid JWT") from None
    if "role" not in claims or "exp" not in claims:
        raise ChannelError("InvalidJWTToken", "Fields `role` and `exp` are required in JWT")
    return claims


# As Realtime sets it for RLS checks: role, claims, headers and the channel's topic
# (realtime.topic()); no request method or path.
_SET_CONTEXT = context_sql("realtime.topic", request=False)


@dataclass
class Policies:
    broadcast_read: bool = False
    presence_read: bool = False
    broadcast_write: bool | None = None  # None: not checked yet
    presence_write: bool | None = None


def _context(topic: str, claims: Mapping[str, Any], headers: Mapping[str, str] | None) -> list[str | None]:
    caller = RequestContext(str(claims.get("role", "anon")), claims, headers=headers or {})
    return [*caller.params(request=False), topic]


async def read_policies(pool: AsyncConnectionPool, topic: str, claims: Mapping[str, Any],
                        headers: Mapping[str, str] | None = None) -> Policies:
    """As Realtime does: insert a broadcast and a presence message for the topic, see which
    of them the caller may SELECT, roll back."""
    async with pool.connection() as conn, conn.transaction(force_rollback=True):
        cur = await conn.execute(
            "insert into realtime.messages (topic, extension) values (%s, 'broadcast'), (%s, 'presence')"
            " returning id, extension", [topic, topic])
        ids = [row[0] for row in await cur.fetchall()]
        await conn.execute(_SET_CONTEXT, _context(topic, claims, headers))
        try:
            async with conn.transaction():
                cur = await conn.execute(
                    "select extension from realtime.messages where topic = %s and id = any(%s)", [topic, ids])
                readable = {row[0] for row in await cur.fetchall()}
        except psycopg.Error:
            readable = set()  # a failing policy grants nothing
    return Policies(broadcast_read="broadcast" in readable, presence_read="presence" in readable)


async def can_write(pool: AsyncConnectionPool, topic: str, claims: Mapping[str, Any], extension: str,
                    headers: Mapping[str, str] | None = None) -> bool:
    """Whether the caller may INSERT a message of `extension` on the topic (then rolled back)."""
    async with pool.connection() as conn, conn.transaction(force_rollback=True):
        await conn.execute(_SET_CONTEXT, _context(topic, claims, headers))
        try:
            async with conn.transaction():
                await conn.execute(
                    "insert into realtime.messages (topic, extension) values (%s, %s)", [topic, extension])
            return True
        except psycopg.Error:
            return False
