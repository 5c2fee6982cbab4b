"""One process's realtime hub: the channels joined here, the postgres_changes bindings they
hold, and the link to the other processes through PostgreSQL.

Fan-out between processes goes through PostgreSQL: broadcasts and presence diffs as NOTIFY
on `realtime_bus` (a payload too large for NOTIFY travels as a realtime.messages row),
row changes through the realtime.changes log, in commit order (see changes.py). Each process
LISTENs through its shared listener (server/db/listener.py), which reconnects after a
failure; the change log's cursor makes sure no change that committed meanwhile is lost.
"""

from __future__ import annotations

import asyncio
import base64
import logging
import uuid
from collections import defaultdict
from typing import TYPE_CHECKING, Any

import orjson
import psycopg

from server.context import AppContext
from server.db.listener import Subscription, cancel_all
from server.realtime.changes import ChangeFeed, PgBinding
from server.realtime.protocol import UserBroadcast, encode_raw_payload, encode_user_broadcast

if TYPE_CHECKING:
    from server.realtime.channel import Channel

log = logging.getLogger("supalite.realtime")

BUS = "realtime_bus"
CHANGES = "realtime_changes"
NOTIFY_LIMIT = 7900  # PostgreSQL refuses NOTIFY payloads of 8000 bytes and more
NODE_TIMEOUT_S = 30
MAINTENANCE_S = 5.0


_SWEEP_DEAD_NODES = """
with dead as (delete from realtime.nodes where seen_at < now() - make_interval(secs => %s) returning id),
     subs as (delete from realtime.subscription where node in (select id from dead))
delete from realtime.presences where node in (select id from dead)
"""


class Hub:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.node = str(uuid.uuid4())
        self.channels: dict[tuple[str, bool], set[Channel]] = defaultdict(set)
        self.bindings: dict[int, PgBinding] = {}
        self.by_entity: dict[int, set[int]] = defaultdict(set)
        self.feed = ChangeFeed(self)
        self._tasks: list[asyncio.Task[None]] = []
        # Deliveries in flight, held so the loop does not collect them before they finish.
        self._deliveries: set[asyncio.Task[None]] = set()
        self.listening = asyncio.Event()
        self._subscription: Subscription | None = None

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        await self._heartbeat()
        self._tasks = [asyncio.create_task(coro) for coro in (self.feed.run(), self._maintain())]
        self._subscription = self._listen()
        try:
            await asyncio.wait_for(self.listening.wait(), 10)
        except TimeoutError:
            log.warning("realtime: listener not connected yet")

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None
        await cancel_all([*self._tasks, *self._deliveries])
        try:
            async with self.ctx.admin_pool.connection() as conn:
                await conn.execute("delete from realtime.subscription where node = %s", [self.node])
                await conn.execute("delete from realtime.presences where node = %s", [self.node])
                await conn.execute("delete from realtime.nodes where id = %s", [self.node])
        except psycopg.Error:
            log.warning("realtime: could not clean up node %s", self.node)

    def _listen(self) -> Subscription:
        def connected() -> None:
            self.listening.set()
            self.feed.wake()  # read what committed while not listening

        async def notified(notify: psycopg.Notify) -> None:
            if notify.channel == CHANGES:
                self.feed.wake()
            else:
                await self._on_bus(notify.payload)

        return self.ctx.listener.subscribe((CHANGES, BUS), on_connect=connected, on_notify=notified,
                                           name="realtime")

    async def _heartbeat(self) -> None:
        async with self.ctx.admin_pool.connection() as conn:
            await conn.execute(
                "insert into realtime.nodes (id) values (%s) on conflict (id) do update set seen_at = now()", [self.node])

    async def _maintain(self) -> None:
        """Refresh this node, sweep dead nodes' rows and old change-log rows."""
        while True:
            await asyncio.sleep(MAINTENANCE_S)
            try:
                await self._heartbeat()
                async with self.ctx.admin_pool.connection() as conn:
                    await conn.execute(_SWEEP_DEAD_NODES, [NODE_TIMEOUT_S])
                    await conn.execute("delete from realtime.changes where created_at < now() - interval '10 minutes'")
                    await conn.execute(
                        "delete from realtime.messages where extension = 'broadcast' and inserted_at < now() - interval '3 days'")
            except psycopg.Error as exc:
                log.warning("realtime: maintenance failed: %s", exc)

    # -- channels ----------------------------------------------------------------------

    def add_channel(self, channel: Channel) -> None:
        self.channels[(channel.sub_topic, channel.private)].add(channel)

    def remove_channel(self, channel: Channel) -> None:
        key = (channel.sub_topic, channel.private)
        members = self.channels.get(key)
        if members is not None:
            members.discard(channel)
            if not members:
                del self.channels[key]

    def add_binding(self, binding: PgBinding) -> None:
        for db_id, entity in binding.db_ids.items():
            self.bindings[db_id] = binding
            self.by_entity[entity].add(db_id)

    def remove_binding(self, binding: PgBinding) -> None:
        for db_id, entity in binding.db_ids.items():
            self.bindings.pop(db_id, None)
            ids = self.by_entity.get(entity)
            if ids is not None:
                ids.discard(db_id)
                if not ids:
                    del self.by_entity[entity]

    # -- broadcast ---------------------------------------------------------------------

    def deliver_broadcast(self, sub_topic: str, private: bool, message: UserBroadcast,
                          sender: Channel | None = None) -> None:
        frames: dict[str, Any] = {}
        topic = "realtime:" + sub_topic
        for channel in tuple(self.channels.get((sub_topic, private), ())):
            if channel is sender and not channel.self_broadcast:
                continue
            if private and not channel.policies.broadcast_read:
                continue
            vsn = channel.socket.vsn
            if vsn not in frames:
                frames[vsn] = encode_user_broadcast(vsn, topic, message)
            if frames[vsn] is not None:
                channel.socket.send(frames[vsn])

    async def broadcast(self, sub_topic: str, private: bool, message: UserBroadcast,
                        sender: Channel | None = None) -> None:
        """Deliver here at once, and to every other process through PostgreSQL."""
        self.deliver_broadcast(sub_topic, private, message, sender)
        body = {"n": self.node, "k": "b", "t": sub_topic, "p": private, "e": message.event,
                "j": message.is_json, "m": message.meta or None,
                "d": message.data.decode() if message.is_json else base64.b64encode(message.data).decode()}
        await self._publish(body, fallback=message if message.is_json else None, sub_topic=sub_topic, private=private)

    # -- presence ----------------------------------------------------------------------

    def deliver_presence_diff(self, sub_topic: str, private: bool, diff: dict[str, Any]) -> None:
        payload = orjson.dumps(diff)
        frames: dict[str, str] = {}
        for channel in tuple(self.channels.get((sub_topic, private), ())):
            if not channel.presence_enabled or (private and not channel.policies.presence_read):
                continue
            vsn = channel.socket.vsn
            if vsn not in frames:
                frames[vsn] = encode_raw_payload(vsn, channel.topic, "presence_diff", payload)
            channel.socket.send(frames[vsn])

    async def presence_diff(self, sub_topic: str, private: bool, diff: dict[str, Any]) -> None:
        self.deliver_presence_diff(sub_topic, private, diff)
        await self._publish({"n": self.node, "k": "p", "t": sub_topic, "p": private, "d": diff})

    # -- the bus -----------------------------------------------------------------------

    async def _publish(self, body: dict[str, Any], fallback: UserBroadcast | None = None,
                       sub_topic: str = "", private: bool = False) -> None:
        text = orjson.dumps(body).decode()
        try:
            async with self.ctx.admin_pool.connection() as conn:
                if len(text.encode()) <= NOTIFY_LIMIT:
                    await conn.execute("select pg_notify(%s, %s)", [BUS, text])
                elif fallback is not None:
                    # Too large for NOTIFY: store it, announce its id.
                    cur = await conn.execute(
                        "insert into realtime.messages (topic, extension, event, payload, private)"
                        " values (%s, 'broadcast', %s, %s::jsonb, %s) returning id",
                        [sub_topic, fallback.event, fallback.data.decode(), private])
                    row = await cur.fetchone()
                    assert row is not None
                    note = orjson.dumps({"n": self.node, "k": "m", "id": str(row[0])}).decode()
                    await conn.execute("select pg_notify(%s, %s)", [BUS, note])
                else:
                    log.warning("realtime: message too large to reach other processes (%d bytes)", len(text))
        except psycopg.Error as exc:
            log.warning("realtime: could not publish to other processes: %s", exc)

    async def _on_bus(self, payload: str) -> None:
        try:
            body = orjson.loads(payload)
        except orjson.JSONDecodeError:
            return
        if not isinstance(body, dict) or body.get("n") == self.node:
            return
        kind = body.get("k")
        if kind == "b":
            data = body["d"].encode() if body.get("j") else base64.b64decode(body["d"])
            message = UserBroadcast(body["e"], data, bool(body.get("j")), body.get("m") or {})
            self.deliver_broadcast(body["t"], bool(body["p"]), message)
        elif kind == "p":
            self.deliver_presence_diff(body["t"], bool(body["p"]), body["d"])
        elif kind == "m":
            task = asyncio.create_task(self._deliver_stored(str(body.get("id"))))
            self._deliveries.add(task)
            task.add_done_callback(self._deliveries.discard)

    async def _deliver_stored(self, message_id: str) -> None:
        """A broadcast stored in realtime.messages (realtime.send, or too large for NOTIFY)."""
        try:
            async with self.ctx.admin_pool.connection() as conn:
                cur = await conn.execute(
                    "select topic, event, payload::text, coalesce(private, false) from realtime.messages"
                    " where id = %s::uuid", [message_id])
                row = await cur.fetchone()
        except psycopg.Error as exc:
            log.warning("realtime: could not read message %s: %s", message_id, exc)
            return
        if row is None:
            return
        topic, event, payload, private = row
        message = UserBroadcast(event or "", (payload or "null").encode(), True, {"id": message_id})
        self.deliver_broadcast(topic, private, message)
