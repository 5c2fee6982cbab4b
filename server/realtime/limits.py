"""Realtime's caps, under Supabase Realtime's names, with its defaults and its replies
(lib/realtime_web/channels/realtime_channel.ex, user_socket.ex, presence_handler.ex).

Per connection (kept by the socket and its channels): channels per client, presence events
per client and window, the size of a track or a broadcast. Per tenant, here the project, so
shared by every server process: joins, messages and presence events per second, and
concurrent users.

A tenant-wide rate is Realtime's RateCounter: a count per 5 s tick, averaged per second over
the last 12 ticks (60 s), and only re-evaluated at a tick, so a burst is judged within 5 s of
its start. Each process counts in memory and, at its tick, adds its counts to the database's
buckets and reads back the sums every process wrote (platform_schema/0350): one statement
per process every 5 s, whatever the traffic, and nothing but additions on the event loop.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import psycopg

from server.core.config import Settings
from server.core.health import is_unavailable
from server.realtime.auth import ChannelError

if TYPE_CHECKING:
    from server.core.context import AppContext

log = logging.getLogger("supalite.realtime")

# A process (node) whose heartbeat is older is dead: its presences, subscriptions and counts go.
NODE_TIMEOUT_S = 30
TICK_S = 5  # Tenants.joins_per_second_rate & co: tick: :timer.seconds(5)
WINDOW_BUCKETS = 12  # max_bucket_len: 12, a 60 s rolling average
KEEP_BUCKETS = 60  # a counter idle for 5 min (RateCounter's idle_shutdown) starts afresh
PAYLOAD_PADDING = 500  # Tenants.validate_payload_size: max_payload_size_in_kb * 1000 + 500

# What a channel is told when it is shut down (a `system` error, then phx_close).
TOO_MANY_MESSAGES = "Too many messages per second"
TOO_MANY_PRESENCE_MESSAGES = "Too many presence messages per second"
CLIENT_PRESENCE_LIMIT = "Client presence rate limit exceeded"
TRACK_TOO_LARGE = "Track message size exceeded"
BROADCAST_TOO_LARGE = "payload_size_exceeded"  # the acknowledged broadcast's error response

_TICK_SQL = "select realtime.rate_tick(%s, %s, %s, %s, %s, %s, %s, %s)"


class JoinRateExceeded(ChannelError):
    """ClientJoinRateLimitReached: the join is refused and the socket disconnected."""

    def __init__(self) -> None:
        super().__init__("ClientJoinRateLimitReached", "Too many joins per second")


@dataclass(frozen=True)
class Caps:
    channels_per_client: int
    joins_per_second: int
    events_per_second: int
    presence_events_per_second: int
    concurrent_users: int
    payload_size_bytes: int
    client_presence_max_calls: int
    client_presence_window_s: float

    @classmethod
    def from_settings(cls, settings: Settings) -> Caps:
        return cls(
            channels_per_client=settings.realtime_max_channels_per_client,
            joins_per_second=settings.realtime_max_joins_per_second,
            events_per_second=settings.realtime_max_events_per_second,
            presence_events_per_second=settings.realtime_max_presence_events_per_second,
            concurrent_users=settings.realtime_max_concurrent_users,
            payload_size_bytes=settings.realtime_max_payload_size_in_kb * 1000 + PAYLOAD_PADDING,
            client_presence_max_calls=settings.realtime_client_presence_max_calls,
            client_presence_window_s=settings.realtime_client_presence_window_ms / 1000,
        )


class Rate:
    """One tenant-wide rate: what this process counted since its tick, and the per-second
    average of every process's counts as of the last tick."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.pending = 0
        self.avg = 0.0

    def add(self, n: int = 1) -> None:
        self.pending += n


class ClientPresenceWindow:
    """PresenceHandler's per-channel limit: `max_calls` presence events, then none until the
    window that the first one opened has passed."""

    def __init__(self) -> None:
        self.calls = 0
        self.ends: float | None = None

    def allow(self, caps: Caps) -> bool:
        now = asyncio.get_running_loop().time()
        if self.ends is None or now > self.ends:
            self.calls, self.ends = 1, now + caps.client_presence_window_s
            return True
        if self.calls >= caps.client_presence_max_calls:
            return False
        self.calls += 1
        return True


class TenantLimits:
    """The tenant-wide caps, as this process sees them."""

    def __init__(self, ctx: AppContext, node: str, node_timeout_s: int) -> None:
        self.ctx = ctx
        self.node = node
        self.node_timeout_s = node_timeout_s
        self.caps = Caps.from_settings(ctx.settings)
        self.joins = Rate("joins")
        self.events = Rate("events")
        self.presence = Rate("presence_events")
        self.users: set[object] = set()  # this process's sockets holding a joined channel
        self.other_users = 0  # the other processes', as of the last tick

    # -- checks ------------------------------------------------------------------------

    def joins_exceeded(self) -> bool:
        return self.joins.avg >= self.caps.joins_per_second  # RateCounter: triggered at >=

    def events_exceeded(self) -> bool:
        return self.events.avg >= self.caps.events_per_second

    def users_full(self) -> bool:
        return len(self.users) + self.other_users >= self.caps.concurrent_users

    def connect_refusal(self) -> str | None:
        """TenantRateLimiters.check_tenant: why a new socket is refused (429), or None."""
        if self.users_full():
            return "Too many connected users"
        if self.joins_exceeded():
            return "Too many joins per second"
        return None

    def admit_join(self, socket: object, channels: int) -> None:
        """limit_max_users, limit_joins, limit_channels, in Realtime's order: a join refused
        for too many channels still counts as a join. Raises ChannelError."""
        if socket not in self.users and self.users_full():
            raise ChannelError("ConnectionRateLimitReached", "Too many connected users")
        if self.joins_exceeded():
            raise JoinRateExceeded()
        self.joins.add()
        if channels >= self.caps.channels_per_client:
            raise ChannelError("ChannelRateLimitReached", "Too many channels")

    def allow_presence_event(self) -> bool:
        """limit_presence_event: refused above the rate (strictly, as upstream), else counted."""
        if self.presence.avg > self.caps.presence_events_per_second:
            return False
        self.presence.add()
        return True

    # -- ticks -------------------------------------------------------------------------

    async def run(self) -> None:
        while True:
            await asyncio.sleep(TICK_S)
            await self.tick()

    async def tick(self) -> None:
        """Hand this process's counts to the others and take the tenant's averages."""
        rates = (self.joins, self.events, self.presence)
        counts = [rate.pending for rate in rates]
        for rate in rates:
            rate.pending = 0
        try:
            async with self.ctx.admin_pool.connection() as conn:
                cur = await conn.execute(_TICK_SQL, [
                    self.node, len(self.users), [rate.key for rate in rates], counts,
                    TICK_S, WINDOW_BUCKETS, KEEP_BUCKETS, self.node_timeout_s])
                row = await cur.fetchone()
        except Exception as exc:
            if not isinstance(exc, psycopg.Error) and not is_unavailable(exc):
                raise
            for rate, count in zip(rates, counts, strict=True):
                rate.pending += count  # handed over at the next tick instead
            log.warning("realtime: rate counters not shared this tick: %s", exc)
            return
        state: dict[str, Any] = row[0] if row else {}
        bucket = int(state.get("bucket", 0))
        totals: dict[str, list[int]] = state.get("counts") or {}
        for rate in rates:
            total, first = totals.get(rate.key, (0, None))
            # A counter's first tick holds an empty bucket (RateCounter ticks at start): a
            # counter that started n buckets ago averages over n + 2 of them, 12 at most.
            length = min(WINDOW_BUCKETS, bucket - int(first) + 2) if first is not None else 1
            rate.avg = int(total) / length / TICK_S
        self.other_users = int(state.get("users", 0))
