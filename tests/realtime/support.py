"""Helpers for realtime tests: tables in the publication, user tokens, a raw Phoenix client."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import orjson
import psycopg
import websockets
from psycopg import sql

from server.core.config import Settings
from server.core.jwt import keys_from_settings


def published_table(database_url: str, name: str) -> None:
    """A table `name` (id, owner, body) readable by its owner only, in supabase_realtime."""
    table = sql.Identifier("public", name)
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(sql.SQL("create table {} (id bigserial primary key, owner uuid, body text)").format(table))
        conn.execute(sql.SQL("alter table {} enable row level security").format(table))
        conn.execute(sql.SQL("create policy own on {} for select using (owner = auth.uid())").format(table))
        conn.execute(sql.SQL("alter publication supabase_realtime add table {}").format(table))


def user_token(settings: Settings, sub: str, expires_in: int = 3600) -> str:
    return keys_from_settings(settings).sign({"sub": sub, "role": "authenticated", "exp": int(time.time()) + expires_in})


class PhoenixClient:
    """A minimal vsn 2.0.0 client speaking JSON arrays, for tests that need raw frames."""

    def __init__(self, ws: websockets.ClientConnection) -> None:
        self.ws = ws
        self.ref = 0

    @classmethod
    async def connect(cls, base_url: str, apikey: str) -> PhoenixClient:
        ws = await websockets.connect(base_url.replace("http", "ws", 1) + f"/realtime/v1/websocket?apikey={apikey}&vsn=2.0.0")
        return cls(ws)

    async def push(self, topic: str, event: str, payload: Any, join_ref: str = "1") -> str:
        self.ref += 1
        await self.ws.send(orjson.dumps([join_ref, str(self.ref), topic, event, payload]).decode())
        return str(self.ref)

    async def receive_any(self, timeout: float | None = 10.0) -> list[Any]:
        """The next frame, whatever its event (a binary one as a `broadcast` frame)."""
        raw = await asyncio.wait_for(self.ws.recv(), timeout)
        if isinstance(raw, bytes):
            return [None, None, "", "broadcast", raw]
        frame: list[Any] = orjson.loads(raw)
        return frame

    async def receive(self, event: str, timeout: float = 10.0) -> list[Any]:
        """The next frame of `event` (other frames are skipped)."""
        async def next_frame() -> list[Any]:
            while True:
                frame = await self.receive_any(timeout=None)
                if frame[3] == event:
                    return frame
        return await asyncio.wait_for(next_frame(), timeout)

    async def join(self, topic: str, config: dict[str, Any], token: str | None = None) -> list[Any]:
        payload: dict[str, Any] = {"config": config}
        if token:
            payload["access_token"] = token
        await self.push(topic, "phx_join", payload)
        return await self.receive("phx_reply")

    async def close(self) -> None:
        await self.ws.close()
