"""Who a channel acts as (its JWT, checked with Realtime's messages) and what a private
channel may do, decided by the RLS policies on realtime.messages.

The checks run on the authenticator's pool with the caller's role and claims, as REST and
storage do: a token naming a role the authenticator cannot become is refused, and the
policies see `session_user = 'authenticator'`. Realtime inserts its probe messages with its
own (admin) connection before switching role; here one SECURITY DEFINER function,
executable by the authenticator only, inserts them (platform_schema/0320), and the
transaction is always rolled back."""

from __future__ import annotations

import time
from collections.abc import Mapping
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, Protocol

import jwt as pyjwt
import psycopg

from server.core.caller import Caller, verified_token
from server.core.health import is_unavailable
from server.core.jwt import JwtError, JwtKeys
from server.core.request_context import RequestContext, context_sql


class Pool(Protocol):
    """Where the checks borrow a connection: the authenticator's pool."""

    def connection(self) -> AbstractAsyncContextManager[psycopg.AsyncConnection[Any]]: ...


class ChannelError(Exception):
    """A refusal with Realtime's `Code: message` reason."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message

    @property
    def reason(self) -> str:
        return f"{self.code}: {self.message}"


def verify_token(keys: JwtKeys, token: Any) -> Caller:
    """The caller of a channel token; raises ChannelError with the message Realtime sends."""
    if not isinstance(token, str) or not token.strip():
        raise ChannelError("MalformedJWT", "The token provided is not a valid JWT")
    token = "".join(token.split())
    try:
        caller = verified_token(keys, token)
    except JwtError as exc:
        if str(exc) == "JWT expired":
            exp = pyjwt.decode(token, options={"verify_signature": False}).get("exp", 0)
            raise ChannelError("InvalidJWTToken", f"Token has expired {int(time.time()) - int(exp)} seconds ago") from None
        if "ignature" in str(exc):
            raise ChannelError("JwtSignatureError", "Failed to validate JWT signature") from None
        raise ChannelError("MalformedJWT", "The token provided is not a valid JWT") from None
    if not caller.role_claimed or caller.expires is None:
        raise ChannelError("InvalidJWTToken", "Fields `role` and `exp` are required in JWT")
    return caller


# As Realtime sets it for RLS checks: role, claims, headers and the channel's topic
# (realtime.topic()); no request method or path.
_SET_CONTEXT = context_sql("realtime.topic", request=False)


@dataclass
class Policies:
    broadcast_read: bool = False
    presence_read: bool = False
    broadcast_write: bool | None = None  # None: not checked yet
    presence_write: bool | None = None


async def act_as(conn: psycopg.AsyncConnection[Any], topic: str, caller: Caller, headers: Mapping[str, str] | None = None) -> None:
    """The rest of the transaction runs as the caller on the topic, as Realtime's RLS checks."""
    await conn.execute(_SET_CONTEXT, [*RequestContext.of(caller, headers=headers).params(request=False), topic])


async def read_policies(pool: Pool, topic: str, caller: Caller,
                        headers: Mapping[str, str] | None = None) -> Policies:
    """As Realtime does: insert a broadcast and a presence message for the topic, see which
    of them the caller may SELECT, roll back. `pool` logs in as authenticator."""
    async with pool.connection() as conn, conn.transaction(force_rollback=True):
        cur = await conn.execute("select id from realtime.probe_messages(%s)", [topic])
        ids = [row[0] for row in await cur.fetchall()]
        try:
            async with conn.transaction():
                await act_as(conn, topic, caller, headers)
                cur = await conn.execute(
                    "select extension from realtime.messages where topic = %s and id = any(%s)", [topic, ids])
                readable = {row[0] for row in await cur.fetchall()}
        except psycopg.Error as exc:
            if is_unavailable(exc):
                raise
            readable = set()  # a role that cannot be taken or a failing policy grants nothing
    return Policies(broadcast_read="broadcast" in readable, presence_read="presence" in readable)


async def can_write(pool: Pool, topic: str, caller: Caller, extension: str,
                    headers: Mapping[str, str] | None = None) -> bool:
    """Whether the caller may INSERT a message of `extension` on the topic (then rolled back).
    `pool` logs in as authenticator."""
    async with pool.connection() as conn, conn.transaction(force_rollback=True):
        try:
            async with conn.transaction():
                await act_as(conn, topic, caller, headers)
                await conn.execute(
                    "insert into realtime.messages (topic, extension) values (%s, %s)", [topic, extension])
            return True
        except psycopg.Error as exc:
            if is_unavailable(exc):
                raise  # not a refusal: the caller answers that the database is unavailable
            return False
