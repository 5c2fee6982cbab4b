"""One process's realtime hub: the channels joined here, the postgres_changes bindings they
hold, and the link to the other processes through PostgreSQL.

Fan-out between processes goes through PostgreSQL: broadcasts, presence diffs and the
database's own broadcasts (realtime.send) through the realtime.bus log, row changes through
the realtime.changes log, each in commit order and read with a cursor of this process (see
bus.py, changes.py). Each process LISTENs through its shared listener
(server/core/listener.py) to be woken at once; a notification lost while the listener
reconnects loses nothing, the cursors catch up.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import uuid
from collections import defaultdict
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

import orjson
import psycopg

from server.core.context import AppContext
from server.core.listener import Subscription, cancel_all
from server.realtime.bus import CHANNEL as BUS
from server.realtime.bus import Bus, PublishError
from server.realtime.changes import ChangeFeed, PgBinding
from server.realtime.limits import NODE_TIMEOUT_S, TOO_MANY_MESSAGES, TenantLimits
from server.realtime.protocol import UserBroadcast, encode_raw_payload, encode_user_broadcast

if TYPE_CHECKING:
    from server.realtime.members import Member

log = logging.getLogger("supalite.realtime")

CHANGES = "realtime_changes"
MAINTENANCE_S = 5.0
PARTITION_EVERY = 720  # maintenance rounds between partition checks (an hour)


_SWEEP_DEAD_NODES = """
with dead as (delete from realtime.nodes where seen_at < now() - make_interval(secs => %s) returning id),
     subs as (delete from realtime.subscription where node in (select id from dead))
delete from realtime.presences where node in (select id from dead)
"""


class Hub:
    def __init__(self, ctx: AppContext) -> None:
        self.ctx = ctx
        self.node = str(uuid.uuid4())
        self.channels: dict[tuple[str, bool], set[Member]] = defaultdict(set)
        self.bindings: dict[int, PgBinding] = {}
        self.by_entity: dict[int, set[int]] = defaultdict(set)
        self.feed = ChangeFeed(ctx.api_pool, self.bindings, self.by_entity)
        self.bus = Bus(ctx, self.node, self._on_bus)
        self.limits = TenantLimits(ctx, self.node, NODE_TIMEOUT_S)
        self._tasks: list[asyncio.Task[None]] = []
        self._spawned: set[asyncio.Task[None]] = set()
        self.listening = asyncio.Event()
        self._subscription: Subscription | None = None

    # -- lifecycle ---------------------------------------------------------------------

    async def start(self) -> None:
        await self._heartbeat()
        await self._partitions()
        await self.limits.tick()  # the other processes' users and rates, before any socket
        try:
            await self.bus.start()
        except psycopg.Error as exc:
            log.warning("realtime: bus not readable yet (%s)", exc)  # its reader retries
        self._tasks = [asyncio.create_task(coro)
                       for coro in (self.feed.run(), self.bus.run(), self._maintain(), self.limits.run())]
        self._subscription = self._listen()
        try:
            await asyncio.wait_for(self.listening.wait(), 10)
        except TimeoutError:
            log.warning("realtime: listener not connected yet")  # /health says so until it is

    def ready(self) -> bool:
        """Listening and reading the bus: what other processes publish reaches this one."""
        return self.listening.is_set() and self.bus.started and self.ctx.listener.connected

    async def stop(self) -> None:
        if self._subscription is not None:
            await self._subscription.close()
            self._subscription = None
        await cancel_all(self._tasks)
        await cancel_all(list(self._spawned))
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
            self.bus.wake()

        def notified(notify: psycopg.Notify) -> None:
            if notify.channel == CHANGES:
                self.feed.wake()
            else:
                self.bus.wake()

        return self.ctx.listener.subscribe((CHANGES, BUS), on_connect=connected, on_notify=notified,
                                           name="realtime")

    async def _heartbeat(self) -> None:
        async with self.ctx.admin_pool.connection() as conn:
            await conn.execute(
                "insert into realtime.nodes (id) values (%s) on conflict (id) do update set seen_at = now()", [self.node])

    async def _partitions(self) -> None:
        """Today's and the next days' realtime.messages partitions; drop those past 72 hours."""
        try:
            async with self.ctx.admin_pool.connection() as conn:
                await conn.execute("select realtime.ensure_message_partitions()")
                await conn.execute("select realtime.drop_old_messages()")
        except psycopg.Error as exc:
            log.warning("realtime: message partitions not maintained: %s", exc)

    async def _maintain(self) -> None:
        """Refresh this node, sweep dead nodes' rows and old log rows, keep the partitions."""
        rounds = 0
        while True:
            await asyncio.sleep(MAINTENANCE_S)
            rounds += 1
            try:
                await self._heartbeat()
                async with self.ctx.admin_pool.connection() as conn:
                    await conn.execute(_SWEEP_DEAD_NODES, [NODE_TIMEOUT_S])
                    await self.feed.sweep(conn)
                    await self.bus.sweep(conn)
            except psycopg.Error as exc:
                log.warning("realtime: maintenance failed: %s", exc)
            if rounds % PARTITION_EVERY == 0:
                await self._partitions()

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run `coro` as a task of this hub (a channel's cleanup after a delivery shut it down)."""
        task = asyncio.ensure_future(coro)
        self._spawned.add(task)
        task.add_done_callback(self._spawned.discard)

    # -- channels ----------------------------------------------------------------------

    def add_channel(self, channel: Member) -> None:
        self.channels[(channel.sub_topic, channel.private)].add(channel)

    def remove_channel(self, channel: Member) -> None:
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
                          sender: Member | None = None) -> None:
        frames: dict[str, Any] = {}
        topic = "realtime:" + sub_topic
        message_id = message.meta.get("id") if message.meta else None
        delivered: list[Member] = []
        for channel in tuple(self.channels.get((sub_topic, private), ())):
            if channel is sender and not channel.self_broadcast:
                continue
            if private and not channel.policies.broadcast_read:
                continue
            if message_id is not None and message_id in channel.replayed_ids:
                continue  # already pushed by the join's replay
            vsn = channel.socket.vsn
            if vsn not in frames:
                frames[vsn] = encode_user_broadcast(vsn, topic, message)
            if frames[vsn] is not None:
                channel.socket.send(frames[vsn])
                delivered.append(channel)
        if not delivered:
            return
        # Each delivery counts for the tenant (MessageDispatcher); above the rate, a channel
        # that receives a message is shut down once it has it (:check_rate_counter).
        self.limits.events.add(len(delivered))
        if self.limits.events_exceeded():
            for channel in delivered:
                channel.stop(TOO_MANY_MESSAGES)

    async def broadcast(self, sub_topic: str, private: bool, message: UserBroadcast,
                        sender: Member | None = None) -> None:
        """Deliver here at once, and to every other process through PostgreSQL; raises
        PublishError when the others cannot be reached."""
        self.deliver_broadcast(sub_topic, private, message, sender)
        await self.bus.publish({
            "k": "b", "t": sub_topic, "p": private, "e": message.event, "j": message.is_json,
            "m": message.meta or None,
            "d": message.data.decode() if message.is_json else base64.b64encode(message.data).decode()})

    # -- presence ----------------------------------------------------------------------

    def deliver_presence_diff(self, sub_topic: str, private: bool, diff: dict[str, Any]) -> None:
        payload = orjson.dumps(diff)
        frames: dict[str, str] = {}
        delivered = 0
        for channel in tuple(self.channels.get((sub_topic, private), ())):
            if not channel.presence_enabled or (private and not channel.policies.presence_read):
                continue
            vsn = channel.socket.vsn
            if vsn not in frames:
                frames[vsn] = encode_raw_payload(vsn, channel.topic, "presence_diff", payload)
            channel.socket.send(frames[vsn])
            delivered += 1
        self.limits.presence.add(delivered)  # counted, not refused, as MessageDispatcher does

    async def presence_diff(self, sub_topic: str, private: bool, diff: dict[str, Any]) -> None:
        self.deliver_presence_diff(sub_topic, private, diff)
        try:
            await self.bus.publish({"k": "p", "t": sub_topic, "p": private, "d": diff})
        except PublishError:
            pass  # the tracking is stored: other processes see it in their next presence_state

    # -- the bus -----------------------------------------------------------------------

    async def _on_bus(self, body: dict[str, Any]) -> None:
        """A message another process (or the database) published."""
        kind, topic = body.get("k"), body.get("t")
        if not isinstance(topic, str):
            return
        private = bool(body.get("p"))
        if kind == "b" and isinstance(body.get("d"), str) and isinstance(body.get("e"), str):
            is_json = bool(body.get("j"))
            try:
                data = body["d"].encode() if is_json else base64.b64decode(body["d"])
            except (ValueError, binascii.Error):
                return
            meta: dict[str, Any] = body["m"] if isinstance(body.get("m"), dict) else {}
            self.deliver_broadcast(topic, private, UserBroadcast(body["e"], data, is_json, meta))
        elif kind == "p" and isinstance(body.get("d"), dict):
            self.deliver_presence_diff(topic, private, body["d"])
