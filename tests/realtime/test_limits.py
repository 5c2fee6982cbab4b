"""Realtime's caps, as Supabase Realtime applies them: channels per connection, joins and
messages per second, presence events (per tenant and per client), track and broadcast sizes,
concurrent users. Each test runs servers of its own on a database of its own: the tenant-wide
counters live in that database, so two servers on it share them, as a project's worker
processes do."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import orjson
import psycopg
import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests import harness
from tests.js.node_suite import needs_node, run_node_suite
from tests.realtime.support import PhoenixClient, published_table

TABLE = "cap_notes"
# Upstream's rate counters tick every 5 s: a rate seen on one process reaches the others by
# the next tick of each (two ticks), so a test polls this long for a cap to show.
WAIT_S = 20.0

Start = Callable[..., list[harness.LiveServer]]


@pytest.fixture
def start(template_ready: str) -> Iterator[Start]:
    """start(env, count=1): `count` servers with the settings `env` on a fresh database."""
    made: list[tuple[str, list[harness.LiveServer]]] = []

    def start_servers(env: dict[str, str] | None = None, count: int = 1) -> list[harness.LiveServer]:
        name = harness.unique_name("t_rt_limits")
        url = harness.create_database_from_template(template_ready, name)
        servers: list[harness.LiveServer] = []
        made.append((name, servers))
        published_table(url, TABLE)
        for _ in range(count):
            servers.append(harness.start_server(url, args=["--no-migrate"], extra_env=env or {}))
        return servers

    yield start_servers
    for name, servers in made:
        for server in servers:
            server.stop()
        harness.drop_database(template_ready, name)


def changes(n: int = 2) -> dict[str, Any]:
    return {"postgres_changes": [{"event": "*", "schema": "public", "table": TABLE}] * n}


def reason(reply: list[Any]) -> str | None:
    payload = reply[4]
    return payload["response"].get("reason") if payload["status"] == "error" else None


async def system_error(client: PhoenixClient, topic: str, timeout: float = 10.0) -> tuple[dict[str, Any], list[Any]]:
    """The `system` error pushed on `topic`, then the phx_close that follows it."""
    async def wait() -> tuple[dict[str, Any], list[Any]]:
        while True:
            frame = await client.receive_any(timeout=None)
            if frame[2] == topic and frame[3] == "system" and frame[4].get("status") == "error":
                close = await client.receive("phx_close")
                return frame[4], close
    return await asyncio.wait_for(wait(), timeout)


async def closed_by_server(client: PhoenixClient, timeout: float = 10.0) -> bool:
    try:
        async with asyncio.timeout(timeout):
            while True:
                await client.receive_any(timeout=None)
    except ConnectionClosed:
        return True
    return False


async def refused_status(server: harness.LiveServer) -> tuple[int, dict[str, Any]] | None:
    """The HTTP status and body a new websocket gets, or None when it is accepted."""
    try:
        client = await PhoenixClient.connect(server.url, server.anon_key)
    except InvalidStatus as exc:
        return exc.response.status_code, orjson.loads(exc.response.body or b"{}")
    await client.close()
    return None


def subscription_rows(server: harness.LiveServer) -> int:
    with psycopg.connect(server.database_url, autocommit=True) as conn:
        row = conn.execute("select count(*) from realtime.subscription").fetchone()
    assert row is not None
    return int(row[0])


# -- channels per connection ---------------------------------------------------------------


def test_one_socket_joins_at_most_100_channels(start: Start) -> None:
    """The finding: one anonymous socket joined 300 channels of 2 postgres_changes bindings
    (601 subscription rows). Realtime refuses the 101st channel of a connection with
    `ChannelRateLimitReached: Too many channels`, and the socket and its channels live on."""
    [server] = start()

    async def scenario() -> tuple[list[str | None], int, str | None, str | None]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        reasons = [reason(await client.join(f"realtime:cap-{i}", changes())) for i in range(300)]
        rows = subscription_rows(server)
        await client.push("phoenix", "heartbeat", {})
        alive = await client.receive("phx_reply")
        assert alive[4]["status"] == "ok"
        # A channel left makes room for another; the 101st is refused again.
        await client.push("realtime:cap-0", "phx_leave", {})
        await client.receive("phx_reply")
        again = reason(await client.join("realtime:cap-again", changes()))
        over = reason(await client.join("realtime:cap-over", changes()))
        await client.close()
        return reasons, rows, again, over

    reasons, rows, again, over = asyncio.run(scenario())
    assert reasons[:100] == [None] * 100
    assert set(reasons[100:]) == {"ChannelRateLimitReached: Too many channels"}
    assert rows == 200
    assert again is None
    assert over == "ChannelRateLimitReached: Too many channels"


def test_the_channel_cap_is_a_setting(start: Start) -> None:
    [server] = start({"TENANT_MAX_CHANNELS_PER_CLIENT": "3"})

    async def scenario() -> list[str | None]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        # Joining a topic again replaces its channel: it does not count twice.
        reasons = [reason(await client.join(f"realtime:{t}", {})) for t in ("a", "a", "b", "c", "d")]
        await client.close()
        return reasons

    assert asyncio.run(scenario()) == [None, None, None, None, "ChannelRateLimitReached: Too many channels"]


@needs_node
def test_supabase_js_sees_the_channel_cap(start: Start) -> None:
    [server] = start({"TENANT_MAX_CHANNELS_PER_CLIENT": "5"})
    counts = run_node_suite("realtime-limits.suite.mjs", server, REALTIME_MAX_CHANNELS="5")
    assert counts["pass"] >= 1 and counts["fail"] == 0


# -- joins per second ----------------------------------------------------------------------


def test_joins_per_second_hold_across_processes(start: Start) -> None:
    """Joins are counted tenant-wide over Realtime's rolling window (5 s ticks, 60 s): a burst
    on one process makes every process refuse joins with `ClientJoinRateLimitReached` and
    disconnect the socket, and refuse new sockets with 429 while the rate stays above."""
    first, second = start({"TENANT_MAX_JOINS_PER_SECOND": "2"}, count=2)

    async def scenario() -> tuple[str, bool, tuple[int, dict[str, Any]] | None]:
        probe = await PhoenixClient.connect(second.url, second.anon_key)  # open before the burst
        flood = await PhoenixClient.connect(first.url, first.anon_key)
        for i in range(40):
            await flood.join(f"realtime:flood-{i % 20}", {})
        await flood.close()
        deadline = time.monotonic() + WAIT_S
        attempt = 0
        while (refused := reason(await probe.join(f"realtime:late-{attempt}", {}))) is None:
            assert time.monotonic() < deadline, "the second process never refused a join"
            attempt += 1
            await asyncio.sleep(0.5)
        closed = await closed_by_server(probe)
        return refused, closed, await refused_status(second)

    refused, closed, status = asyncio.run(scenario())
    assert refused == "ClientJoinRateLimitReached: Too many joins per second"
    assert closed
    assert status == (429, {"error": "Too many joins per second"})


# -- messages per second -------------------------------------------------------------------


def test_messages_per_second_shut_the_channels_down_across_processes(start: Start) -> None:
    """Broadcasts sent on one process and delivered on the other count for the tenant; past
    max_events_per_second, a channel that receives a message is shut down with Realtime's
    `system` error `Too many messages per second`, then phx_close."""
    first, second = start({"TENANT_MAX_EVENTS_PER_SECOND": "1"}, count=2)

    async def scenario() -> tuple[dict[str, Any], list[Any]]:
        listener = await PhoenixClient.connect(second.url, second.anon_key)
        assert reason(await listener.join("realtime:busy", {})) is None
        sender = await PhoenixClient.connect(first.url, first.anon_key)
        assert reason(await sender.join("realtime:busy", {})) is None
        for i in range(30):
            await sender.push("realtime:busy", "broadcast", {"type": "broadcast", "event": "e", "payload": {"i": i}})

        async def keep_sending() -> None:
            while True:
                await asyncio.sleep(0.5)
                await sender.push("realtime:busy", "broadcast", {"type": "broadcast", "event": "e", "payload": {}})

        feeder = asyncio.create_task(keep_sending())
        try:
            return await system_error(listener, "realtime:busy", timeout=WAIT_S)
        finally:
            feeder.cancel()
            await sender.close()
            await listener.close()

    system, close = asyncio.run(scenario())
    assert system == {"extension": "system", "status": "error", "message": "Too many messages per second",
                      "channel": "busy"}
    assert close[2] == "realtime:busy"


# -- presence ------------------------------------------------------------------------------


def track(meta: dict[str, Any]) -> dict[str, Any]:
    return {"type": "presence", "event": "track", "payload": meta}


def test_a_client_tracks_presence_at_most_5_times_in_30_seconds(start: Start) -> None:
    [server] = start()

    async def scenario() -> tuple[list[str], dict[str, Any]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        assert reason(await client.join("realtime:room", {"presence": {"key": "me", "enabled": True}})) is None
        statuses = []
        for i in range(5):
            ref = await client.push("realtime:room", "presence", track({"i": i}))
            while (reply := await client.receive("phx_reply"))[1] != ref:
                pass
            statuses.append(reply[4]["status"])
        await client.push("realtime:room", "presence", track({"i": 5}))
        system, _ = await system_error(client, "realtime:room")
        await client.close()
        return statuses, system

    statuses, system = asyncio.run(scenario())
    assert statuses == ["ok"] * 5
    assert system["message"] == "Client presence rate limit exceeded"


def test_presence_events_per_second_are_counted_for_the_tenant(start: Start) -> None:
    [server] = start({"TENANT_MAX_PRESENCE_EVENTS_PER_SECOND": "1"})

    async def scenario() -> dict[str, Any]:
        clients = []
        for i in range(12):
            client = await PhoenixClient.connect(server.url, server.anon_key)
            clients.append(client)
            assert reason(await client.join("realtime:crowd", {"presence": {"key": f"u{i}", "enabled": True}})) is None
            await client.push("realtime:crowd", "presence", track({"n": i}))
        deadline = time.monotonic() + WAIT_S
        attempt = 0
        try:
            while True:
                attempt += 1
                late = await PhoenixClient.connect(server.url, server.anon_key)
                clients.append(late)
                await late.join(f"realtime:late-{attempt}", {"presence": {"key": "late", "enabled": True}})
                await late.push(f"realtime:late-{attempt}", "presence", track({"late": attempt}))
                try:
                    system, _ = await system_error(late, f"realtime:late-{attempt}", timeout=1.0)
                    return system
                except TimeoutError:
                    assert time.monotonic() < deadline, "presence was never limited"
        finally:
            for client in clients:
                await client.close()

    assert asyncio.run(scenario())["message"] == "Too many presence messages per second"


def test_track_and_broadcast_payloads_are_bounded(start: Start) -> None:
    """max_payload_size_in_kb (3,000 by default): a larger track shuts the channel down
    (`Track message size exceeded`); a larger broadcast is not sent, and an acknowledged one
    answers `payload_size_exceeded`."""
    [server] = start({"TENANT_MAX_PAYLOAD_SIZE_IN_KB": "1"})
    big = "x" * 2000

    async def scenario() -> tuple[list[Any], list[Any], dict[str, Any]]:
        client = await PhoenixClient.connect(server.url, server.anon_key)
        await client.join("realtime:sized", {"broadcast": {"ack": True}, "presence": {"key": "k", "enabled": True}})
        ref = await client.push("realtime:sized", "broadcast", {"type": "broadcast", "event": "e", "payload": {"big": big}})
        while (refused := await client.receive("phx_reply"))[1] != ref:
            pass
        ref = await client.push("realtime:sized", "broadcast", {"type": "broadcast", "event": "e", "payload": {"small": 1}})
        while (accepted := await client.receive("phx_reply"))[1] != ref:
            pass
        await client.push("realtime:sized", "presence", track({"big": big}))
        system, _ = await system_error(client, "realtime:sized")
        await client.close()
        return refused, accepted, system

    refused, accepted, system = asyncio.run(scenario())
    assert refused[4] == {"status": "error", "response": "payload_size_exceeded"}
    assert accepted[4] == {"status": "ok", "response": {}}
    assert system["message"] == "Track message size exceeded"


# -- concurrent users ----------------------------------------------------------------------


def test_concurrent_users_hold_across_processes(start: Start) -> None:
    """A socket counts as a user from its first joined channel until it closes. At the cap,
    a new socket is refused with 429 `Too many connected users` (on every process, by its
    next tick) and an open socket without a channel is refused its join."""
    first, second = start({"TENANT_MAX_CONCURRENT_USERS": "1"}, count=2)

    async def scenario() -> tuple[Any, ...]:
        idle = await PhoenixClient.connect(first.url, first.anon_key)  # connected, no channel yet
        user = await PhoenixClient.connect(first.url, first.anon_key)
        assert reason(await user.join("realtime:u", {})) is None
        here = await refused_status(first)
        join = reason(await idle.join("realtime:u", {}))
        deadline = time.monotonic() + WAIT_S
        while (there := await refused_status(second)) is None:
            assert time.monotonic() < deadline, "the second process never counted the user"
            await asyncio.sleep(0.5)
        second_join = reason(await user.join("realtime:u2", {}))  # a counted user joins on
        await user.close()
        await idle.close()
        deadline = time.monotonic() + WAIT_S
        while (after := await refused_status(first)) is not None:
            assert time.monotonic() < deadline, "the user was never uncounted"
            await asyncio.sleep(0.2)
        return here, join, there, second_join, after

    here, join, there, second_join, after = asyncio.run(scenario())
    assert here == (429, {"error": "Too many connected users"})
    assert join == "ConnectionRateLimitReached: Too many connected users"
    assert there == (429, {"error": "Too many connected users"})
    assert second_join is None
    assert after is None


def test_caps_are_settings_under_realtimes_names() -> None:
    from server.core.config import SETTINGS
    from server.provision.settings import load_settings

    settings = load_settings({}, dotenv=None)
    names = {s.env: (name, s.default) for name, s in SETTINGS.items()}
    assert names["TENANT_MAX_CHANNELS_PER_CLIENT"][1] == "100"
    assert names["TENANT_MAX_JOINS_PER_SECOND"][1] == "100"
    assert names["TENANT_MAX_EVENTS_PER_SECOND"][1] == "100"
    assert names["TENANT_MAX_CONCURRENT_USERS"][1] == "200"
    assert names["TENANT_MAX_PRESENCE_EVENTS_PER_SECOND"][1] == "1000"
    assert names["TENANT_MAX_PAYLOAD_SIZE_IN_KB"][1] == "3000"
    assert names["CLIENT_PRESENCE_MAX_CALLS"][1] == "5"
    assert names["CLIENT_PRESENCE_WINDOW_MS"][1] == "30000"
    assert getattr(settings, names["TENANT_MAX_JOINS_PER_SECOND"][0]) == 100
