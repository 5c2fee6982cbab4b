"""The websocket at /realtime/v1/websocket: Phoenix's socket, as realtime-js speaks it.

Frames are read one at a time and answered in order; everything pushed to the client goes
through one bounded queue and one writer task, so a slow client never blocks fan-out.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from typing import TYPE_CHECKING, Any

from starlette.responses import JSONResponse
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.core.jwt import JwtError
from server.realtime.auth import ChannelError
from server.realtime.channel import Channel
from server.realtime.limits import JoinRateExceeded
from server.realtime.protocol import VSN_1, VSNS, Message, ProtocolError, decode, encode

if TYPE_CHECKING:
    from server.realtime.hub import Hub

log = logging.getLogger("supalite.realtime")

MAX_QUEUE = 10_000  # frames waiting for a client that does not read: it is disconnected
DRAIN_S = 5.0  # how long a socket the server closes has to take its last frames


class SocketState(enum.Enum):
    CONNECTING = "connecting"
    OPEN = "open"
    CLOSED = "closed"


class RealtimeSocket:
    def __init__(self, ws: WebSocket, hub: Hub, vsn: str, token: str) -> None:
        self.ws = ws
        self.hub = hub
        self.vsn = vsn
        self.token = token
        self.channels: dict[str, Channel] = {}
        self.state = SocketState.CONNECTING
        self._queue: asyncio.Queue[str | bytes | None] = asyncio.Queue()
        self._drain = False  # closed by the server with a last word (a join refusal): sent first

    # -- output ------------------------------------------------------------------------

    def send(self, frame: str | bytes) -> None:
        if self.state is not SocketState.OPEN:
            return
        if self._queue.qsize() >= MAX_QUEUE:
            log.warning("realtime: client too slow, disconnecting")
            self.state = SocketState.CLOSED
            self._queue.put_nowait(None)
            return
        self._queue.put_nowait(frame)

    def push(self, join_ref: str | None, ref: str | None, topic: str, event: str, payload: Any) -> None:
        self.send(encode(self.vsn, join_ref, ref, topic, event, payload))

    def reply(self, msg: Message, status: str, response: Any) -> None:
        self.push(msg.join_ref, msg.ref, msg.topic, "phx_reply", {"status": status, "response": response})

    def disconnect(self) -> None:
        """Close the socket once what is queued has gone out; no further frame is read."""
        if self.state is SocketState.OPEN:
            self.state = SocketState.CLOSED
            self._drain = True
            self._queue.put_nowait(None)

    async def _writer(self) -> None:
        while True:
            frame = await self._queue.get()
            if frame is None:
                await self.ws.close()
                return
            if isinstance(frame, str):
                await self.ws.send_text(frame)
            else:
                await self.ws.send_bytes(frame)

    # -- input -------------------------------------------------------------------------

    async def run(self) -> None:
        await self.ws.accept()
        self.state = SocketState.OPEN
        writer = asyncio.create_task(self._writer())
        try:
            while self.state is SocketState.OPEN:
                received = await self.ws.receive()
                if received["type"] == "websocket.disconnect":
                    break
                raw = received.get("text")
                if raw is None:
                    raw = received.get("bytes")
                if raw is None:
                    continue
                try:
                    msg = decode(raw, self.vsn)
                except ProtocolError as exc:
                    log.info("realtime: unreadable frame: %s", exc)
                    continue
                await self._handle(msg)
        except WebSocketDisconnect:
            pass
        finally:
            self.state = SocketState.CLOSED
            self.hub.limits.users.discard(self)
            for channel in list(self.channels.values()):
                await channel.close()
            if self._drain:
                await asyncio.wait([writer], timeout=DRAIN_S)
            writer.cancel()
            try:
                await writer
            except (asyncio.CancelledError, Exception):
                pass

    async def _handle(self, msg: Message) -> None:
        if msg.topic == "phoenix":
            if msg.event == "heartbeat":
                self.reply(msg, "ok", {})
            return
        if msg.event == "phx_join":
            await self._join(msg)
            return
        channel = self.channels.get(msg.topic)
        if channel is None or (msg.join_ref is not None and channel.join_ref != msg.join_ref):
            if msg.event != "phx_leave" or channel is None:
                self.reply(msg, "error", {"reason": "unmatched topic"})
            return
        await channel.handle(msg)

    async def _join(self, msg: Message) -> None:
        if not msg.topic.startswith("realtime:"):
            self.reply(msg, "error", {"reason": "unmatched topic"})
            return
        existing = self.channels.get(msg.topic)
        if existing is not None:
            # Phoenix closes the earlier join of the same topic.
            self.push(existing.join_ref, existing.join_ref, existing.topic, "phx_close", {})
            await existing.close()
        channel = Channel(self, msg.topic, msg.join_ref)
        payload = msg.payload if isinstance(msg.payload, dict) else {}
        try:
            response, errors = await channel.join(payload)
        except ChannelError as exc:
            await channel.close()
            self.reply(msg, "error", {"reason": exc.reason})
            if isinstance(exc, JoinRateExceeded):
                self.disconnect()  # Realtime sends the transport a "disconnect"
            return
        except Exception:
            log.exception("realtime: join failed")
            await channel.close()
            self.reply(msg, "error", {"reason": "UnknownErrorOnChannel: Unknown Error on Channel"})
            return
        self.channels[msg.topic] = channel
        self.hub.limits.users.add(self)  # a user from its first channel until it closes (UsersCounter)
        self.reply(msg, "ok", response)
        await channel.after_join(errors)

    def forget(self, channel: Channel) -> None:
        if self.channels.get(channel.topic) is channel:
            del self.channels[channel.topic]


async def serve_socket(ws: WebSocket, hub: Hub) -> None:
    vsn = ws.query_params.get("vsn", VSN_1)
    token = ws.query_params.get("apikey") or ws.headers.get("apikey") or ""
    if vsn not in VSNS:
        await ws.close(code=1008)
        return
    try:
        hub.ctx.keys.decode(token)
    except JwtError:
        await ws.close(code=1008)  # refused before the upgrade: HTTP 403, as Realtime does
        return
    refusal = hub.limits.connect_refusal()
    if refusal is not None:  # UserSocket.handle_error: 429 {"error": ...}
        await ws.send_denial_response(JSONResponse({"error": refusal}, status_code=429))
        return
    await RealtimeSocket(ws, hub, vsn, token).run()
