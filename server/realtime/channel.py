"""One joined channel of a socket: its join config, who it acts as, its postgres_changes
bindings and presence entry, and the events a client sends on it."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import orjson
import psycopg

from server.core.caller import ANONYMOUS, Caller
from server.realtime import presence, replay
from server.realtime.auth import ChannelError, Policies, can_write, read_policies, verify_token
from server.realtime.bus import PublishError
from server.realtime.changes import PgBinding, subscribe
from server.realtime.limits import (
    BROADCAST_TOO_LARGE,
    CLIENT_PRESENCE_LIMIT,
    TOO_MANY_PRESENCE_MESSAGES,
    TRACK_TOO_LARGE,
    ClientPresenceWindow,
)
from server.realtime.protocol import Message, UserBroadcast, encode_user_broadcast

if TYPE_CHECKING:
    from server.core.pool import Pool
    from server.realtime.hub import Hub

log = logging.getLogger("supalite.realtime")

class Client(Protocol):
    """The websocket a channel was joined on (socket.py's RealtimeSocket), as the channel uses it."""

    @property
    def hub(self) -> Hub: ...

    @property
    def vsn(self) -> str: ...

    @property
    def token(self) -> str: ...

    @property
    def channels(self) -> Mapping[str, Channel]: ...

    def send(self, frame: str | bytes) -> None: ...

    def push(self, join_ref: str | None, ref: str | None, topic: str, event: str, payload: Any) -> None: ...

    def reply(self, msg: Message, status: str, response: Any) -> None: ...

    def forget(self, channel: Channel) -> None: ...


class Channel:
    def __init__(self, socket: Client, topic: str, join_ref: str | None) -> None:
        self.socket = socket
        self.topic = topic
        self.sub_topic = topic[len("realtime:"):]
        self.join_ref = join_ref
        self.private = False
        self.self_broadcast = False
        self.ack = False
        self.presence_enabled = False
        self.presence_key = ""
        self.policies = Policies(True, True, True, True)
        self.caller: Caller = ANONYMOUS
        self.access_token: str | None = None
        self.bindings: list[PgBinding] = []
        self.presence_entry: tuple[str, dict[str, Any]] | None = None
        self.replayed: list[replay.StoredMessage] = []
        self.replayed_ids: frozenset[str] = frozenset()  # not delivered again when they arrive live
        self._expiry: asyncio.TimerHandle | None = None
        self._presence_window = ClientPresenceWindow()
        self.stopping = False  # shut down: its last frames are queued, its cleanup pending
        self.closed = False

    @property
    def hub(self) -> Hub:
        return self.socket.hub

    @property
    def pool(self) -> Pool:
        """Bookkeeping (subscription rows, presences, the published tables): the owner's pool."""
        return self.hub.ctx.admin_pool

    @property
    def api_pool(self) -> Pool:
        """Policy checks as the caller: the authenticator's pool, as REST and storage."""
        return self.hub.ctx.api_pool

    # -- join --------------------------------------------------------------------------

    async def join(self, payload: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """Returns the join reply's response and the errors to report as system messages."""
        if not self.sub_topic:
            raise ChannelError("TopicNameRequired", "You must provide a topic name")
        self.hub.limits.admit_join(self.socket, len(self.socket.channels))
        config: dict[str, Any] = payload["config"] if isinstance(payload.get("config"), dict) else {}
        broadcast: dict[str, Any] = config["broadcast"] if isinstance(config.get("broadcast"), dict) else {}
        presence_cfg: dict[str, Any] = config["presence"] if isinstance(config.get("presence"), dict) else {}
        self.self_broadcast = bool(broadcast.get("self"))
        self.ack = bool(broadcast.get("ack"))
        self.private = bool(config.get("private"))
        self.presence_enabled = presence_cfg.get("enabled", True) is not False
        self.presence_key = str(presence_cfg.get("key") or "") or str(uuid.uuid1())

        self._authenticate(payload.get("access_token") or payload.get("user_token"))
        if self.private:
            await self._authorize_read()
        if "replay" in broadcast:
            replay.check(self.private, bool(self.policies.broadcast_read), self.sub_topic)
            self.replayed = await replay.fetch(self.api_pool, self.sub_topic, self.caller, broadcast["replay"])
            self.replayed_ids = frozenset(m.id for m in self.replayed)
        pg_params = config.get("postgres_changes") or []
        if not isinstance(pg_params, list):
            pg_params = []
        entries = [p for p in pg_params if isinstance(p, dict)]
        response, errors, bindings = await subscribe(self, self.pool, self.caller, self.hub.node, entries)  # all or none
        for binding in bindings:
            self.bindings.append(binding)
            self.hub.add_binding(binding)
        self.hub.add_channel(self)
        return {"postgres_changes": response}, errors

    def _authenticate(self, token: Any) -> None:
        if not isinstance(token, str) or token.startswith("sb_"):
            token = self.socket.token
        caller = verify_token(self.hub.ctx.keys, token)
        self.caller, self.access_token = caller, token
        self._schedule_expiry(caller)

    def _schedule_expiry(self, caller: Caller) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
        delay = max(0.0, (caller.expires or 0.0) - time.time())
        loop = asyncio.get_running_loop()
        self._expiry = loop.call_later(
            min(delay, 3600.0), lambda: asyncio.ensure_future(self._on_expiry_check()))

    async def _on_expiry_check(self) -> None:
        try:
            caller = verify_token(self.hub.ctx.keys, self.access_token)
        except ChannelError as exc:
            await self.shutdown(exc.message)
            return
        self._schedule_expiry(caller)

    async def _authorize_read(self) -> None:
        policies = await read_policies(self.api_pool, self.sub_topic, self.caller)
        if not (policies.broadcast_read or policies.presence_read):
            raise ChannelError("Unauthorized", f"You do not have permissions to read from this Channel topic: {self.sub_topic}")
        self.policies = policies

    # -- after the join reply ----------------------------------------------------------

    async def after_join(self, errors: list[str]) -> None:
        self._push_replayed()
        if self.bindings or errors:
            if errors:
                for error in errors:
                    self.push_system("postgres_changes", "error", error)
            else:
                self.push_system("postgres_changes", "ok", "Subscribed to PostgreSQL")
        if self.presence_enabled and (not self.private or self.policies.presence_read):
            await self._push_presence_state()

    async def _push_presence_state(self) -> None:
        if not self.hub.limits.allow_presence_event():  # PresenceHandler.sync
            await self.shutdown(TOO_MANY_PRESENCE_MESSAGES)
            return
        state = await presence.state(self.pool, self.sub_topic, self.private)
        self.push("presence_state", state)

    def _push_replayed(self) -> None:
        for stored in self.replayed:
            meta = {"replayed": True, "id": stored.id}
            if stored.is_json:
                self.push("broadcast", {"payload": orjson.Fragment(stored.payload), "event": stored.event,
                                        "type": "broadcast", "meta": meta})
            else:
                frame = encode_user_broadcast(self.socket.vsn, self.topic,
                                              UserBroadcast(stored.event, stored.payload, False, meta))
                if frame is not None:  # vsn 1.0.0 cannot carry a binary payload: skipped, as Realtime does
                    self.socket.send(frame)
        self.replayed = []

    def push(self, event: str, payload: Any) -> None:
        self.socket.push(self.join_ref, None, self.topic, event, payload)

    def push_system(self, extension: str, status: str, message: str) -> None:
        self.push("system", {"extension": extension, "status": status, "message": message, "channel": self.sub_topic})

    # -- client events -----------------------------------------------------------------

    async def handle(self, msg: Message) -> None:
        if msg.event == "broadcast":
            await self._on_broadcast(msg)
        elif msg.event == "presence":
            await self._on_presence(msg)
        elif msg.event == "access_token":
            await self._on_access_token(msg.payload)
        elif msg.event == "phx_leave":
            self.socket.reply(msg, "ok", {})
            await self.close()
        else:
            self.hub.limits.events.add()  # counted as Realtime's handle_in fallback does
            log.info("realtime: unexpected message of type %s on %s", msg.event, self.sub_topic)

    async def _on_broadcast(self, msg: Message) -> None:
        if isinstance(msg.payload, UserBroadcast):
            message = msg.payload
        elif isinstance(msg.payload, dict) and isinstance(msg.payload.get("event"), str):
            message = UserBroadcast.from_json(msg.payload["event"], msg.payload.get("payload"))
        else:
            return
        if self.private and self.policies.broadcast_write is None:
            self.policies.broadcast_write = await can_write(self.api_pool, self.sub_topic, self.caller, "broadcast")
        if self.private and not self.policies.broadcast_write:
            if self.ack:
                self.socket.reply(msg, "error", {"reason": "You do not have permissions to write to this Channel topic"})
            return
        self.hub.limits.events.add()  # sent or not, as BroadcastHandler counts it
        if len(message.data) > self.hub.limits.caps.payload_size_bytes:
            if self.ack:
                self.socket.reply(msg, "error", BROADCAST_TOO_LARGE)
            return
        try:
            await self.hub.broadcast(self.sub_topic, self.private, message, sender=self)
        except PublishError:
            if self.ack:  # delivered here, but not to the other processes
                self.socket.reply(msg, "error", {"reason": "Unable to broadcast the message"})
            return
        if self.ack:
            self.socket.reply(msg, "ok", {})

    async def _on_presence(self, msg: Message) -> None:
        payload = msg.payload if isinstance(msg.payload, dict) else {}
        if "event" in payload and not self._presence_window.allow(self.hub.limits.caps):
            await self.shutdown(CLIENT_PRESENCE_LIMIT)  # every presence event counts, untrack too
            return
        event = str(payload.get("event", "")).lower()
        if self.private and self.policies.presence_write is None:
            self.policies.presence_write = await can_write(self.api_pool, self.sub_topic, self.caller, "presence")
        if event == "track":
            meta = payload.get("payload", {})
            if not isinstance(meta, dict):
                self.socket.reply(msg, "error", {"reason": "Presence track payload must be a map"})
                return
            if self.private and not self.policies.presence_write:
                self.socket.reply(msg, "error", {})
                return
            if self.presence_entry is not None and self.presence_entry[1] == meta:
                self.socket.reply(msg, "ok", {})
                return
            if len(orjson.dumps(meta)) > self.hub.limits.caps.payload_size_bytes:
                await self.shutdown(TRACK_TOO_LARGE)
                return
            if not self.hub.limits.allow_presence_event():
                await self.shutdown(TOO_MANY_PRESENCE_MESSAGES)
                return
            ref, diff = await presence.track(self.pool, self.hub.node, self.sub_topic, self.private,
                                             self.presence_key, meta, self.presence_entry)
            self.presence_entry = (ref, meta)
            self.socket.reply(msg, "ok", {})
            newly_enabled = not self.presence_enabled
            self.presence_enabled = True
            await self.hub.presence_diff(self.sub_topic, self.private, diff)
            if newly_enabled:
                await self._push_presence_state()
        elif event == "untrack":
            await self._untrack()
            self.socket.reply(msg, "ok", {})
        else:
            self.socket.reply(msg, "error", {})

    async def _untrack(self) -> None:
        if self.presence_entry is None:
            return
        entry, self.presence_entry = self.presence_entry, None
        diff = await presence.untrack(self.pool, self.presence_key, entry)
        await self.hub.presence_diff(self.sub_topic, self.private, diff)

    async def _on_access_token(self, payload: Any) -> None:
        token = payload.get("access_token") if isinstance(payload, dict) else None
        if not isinstance(token, str) or token.startswith("sb_") or token == self.access_token:
            return
        try:
            caller = verify_token(self.hub.ctx.keys, token)
        except ChannelError as exc:
            await self.shutdown(exc.message)
            return
        self.caller, self.access_token = caller, token
        self._schedule_expiry(caller)
        if self.private:
            before = self.policies
            policies = await read_policies(self.api_pool, self.sub_topic, caller)
            if (before.broadcast_read and not policies.broadcast_read) or (before.presence_read and not policies.presence_read):
                await self.shutdown(f"You no longer have permission to read from this Channel topic: {self.sub_topic}")
                return
            self.policies = policies
        db_ids = [db_id for b in self.bindings for db_id in b.db_ids]
        if db_ids:
            async with self.pool.connection() as conn:
                await conn.execute(
                    "update realtime.subscription set claims = %s::jsonb, claims_role = %s where id = any(%s)",
                    [caller.claims_json, caller.role, db_ids])

    # -- the end -----------------------------------------------------------------------

    async def shutdown(self, message: str) -> None:
        """Realtime's shutdown: a system error message, then the channel closes."""
        if self._announce_shutdown(message):
            await self.close()

    def stop(self, message: str) -> None:
        """shutdown() where nothing may wait (a delivery): the frames are queued at once and
        the channel stops receiving; its rows are cleaned up by a task."""
        if self._announce_shutdown(message):
            self.hub.spawn(self.close())

    def _announce_shutdown(self, message: str) -> bool:
        if self.closed or self.stopping:
            return False
        self.stopping = True
        self.push_system("system", "error", message)
        self.socket.push(self.join_ref, self.join_ref, self.topic, "phx_close", {})
        self.socket.forget(self)  # the client's next frames on it are unmatched, as for a dead channel
        self.hub.remove_channel(self)
        return True

    async def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.socket.forget(self)
        if self._expiry is not None:
            self._expiry.cancel()
        self.hub.remove_channel(self)
        db_ids: list[int] = []
        for binding in self.bindings:
            self.hub.remove_binding(binding)
            db_ids.extend(binding.db_ids)
        try:
            if db_ids:
                async with self.pool.connection() as conn:
                    await conn.execute("delete from realtime.subscription where id = any(%s)", [db_ids])
            await self._untrack()
        except psycopg.Error as exc:
            log.warning("realtime: cleanup of %s failed: %s", self.sub_topic, exc)
