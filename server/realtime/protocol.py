"""Phoenix channel frames as realtime-js speaks them.

vsn 1.0.0: JSON objects `{join_ref, ref, topic, event, payload}`.
vsn 2.0.0: JSON arrays `[join_ref, ref, topic, event, payload]`, plus realtime-js's binary
user-broadcast frames: kind 3 (client push) in, kind 4 (server broadcast) out.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import orjson

VSN_1 = "1.0.0"
VSN_2 = "2.0.0"
VSNS = (VSN_1, VSN_2)

KIND_USER_BROADCAST_PUSH = 3
KIND_USER_BROADCAST = 4
ENCODING_BINARY = 0
ENCODING_JSON = 1


class ProtocolError(Exception):
    """A frame the server cannot read."""


@dataclass(frozen=True)
class UserBroadcast:
    """One broadcast message: its event, and its payload as JSON bytes or raw bytes."""

    event: str
    data: bytes
    is_json: bool = True
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_json(cls, event: str, payload: Any) -> UserBroadcast:
        return cls(event, orjson.dumps(payload), True)

    def json_message(self) -> dict[str, Any] | None:
        """`{type, event, payload}` as a JSON channel message; None for a binary payload."""
        if not self.is_json:
            return None
        message: dict[str, Any] = {"type": "broadcast", "event": self.event, "payload": orjson.loads(self.data)}
        if self.meta:
            message["meta"] = self.meta
        return message


@dataclass(frozen=True)
class Message:
    join_ref: str | None
    ref: str | None
    topic: str
    event: str
    payload: Any  # a dict, or a UserBroadcast for binary broadcast pushes


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def decode(raw: str | bytes, vsn: str) -> Message:
    if isinstance(raw, bytes):
        return _decode_binary(raw)
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise ProtocolError("invalid JSON") from None
    if vsn == VSN_1:
        if not isinstance(data, dict):
            raise ProtocolError("expected a JSON object")
        join_ref, ref, topic, event, payload = (data.get(k) for k in ("join_ref", "ref", "topic", "event", "payload"))
    else:
        if not isinstance(data, list) or len(data) < 5:
            raise ProtocolError("expected a V2 array")
        join_ref, ref, topic, event, payload = data[:5]
    if not isinstance(topic, str) or not isinstance(event, str):
        raise ProtocolError("topic and event must be strings")
    return Message(_text(join_ref), _text(ref), topic, event, payload if payload is not None else {})


def _decode_binary(raw: bytes) -> Message:
    if len(raw) < 7 or raw[0] != KIND_USER_BROADCAST_PUSH:
        raise ProtocolError("unknown binary frame")
    join_ref_size, ref_size, topic_size, event_size, meta_size, encoding = struct.unpack_from("6B", raw, 1)
    offset = 7
    parts = []
    for size in (join_ref_size, ref_size, topic_size, event_size, meta_size):
        if offset + size > len(raw):
            raise ProtocolError("truncated binary frame")
        parts.append(raw[offset:offset + size])
        offset += size
    try:
        join_ref, ref, topic, event, meta_raw = (p.decode() for p in parts)
        meta = orjson.loads(meta_raw) if meta_raw else {}
    except (UnicodeDecodeError, orjson.JSONDecodeError):
        raise ProtocolError("invalid binary frame") from None
    data = raw[offset:]
    is_json = encoding == ENCODING_JSON
    if is_json:
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError:
            raise ProtocolError("invalid JSON payload") from None
    broadcast = UserBroadcast(event, bytes(data), is_json, meta if isinstance(meta, dict) else {})
    return Message(join_ref or None, ref or None, topic, "broadcast", broadcast)


def encode(vsn: str, join_ref: str | None, ref: str | None, topic: str, event: str, payload: Any) -> str:
    if vsn == VSN_1:
        frame: Any = {"join_ref": join_ref, "ref": ref, "topic": topic, "event": event, "payload": payload}
    else:
        frame = [join_ref, ref, topic, event, payload]
    return orjson.dumps(frame).decode()


def encode_raw_payload(vsn: str, topic: str, event: str, payload_json: bytes) -> str:
    """A push whose payload is already JSON (shared by many subscribers): no re-encoding."""
    topic_json = orjson.dumps(topic)
    event_json = orjson.dumps(event)
    if vsn == VSN_1:
        body = b'{"join_ref":null,"ref":null,"topic":' + topic_json + b',"event":' + event_json + b',"payload":' + payload_json + b"}"
    else:
        body = b"[null,null," + topic_json + b"," + event_json + b"," + payload_json + b"]"
    return body.decode()


def encode_user_broadcast(vsn: str, topic: str, broadcast: UserBroadcast) -> str | bytes | None:
    """The frame pushing a broadcast to one subscriber; None when vsn 1.0.0 cannot carry it."""
    if vsn == VSN_1:
        message = broadcast.json_message()
        return None if message is None else encode(vsn, None, None, topic, "broadcast", message)
    topic_b = topic.encode()
    event_b = broadcast.event.encode()
    meta_b = orjson.dumps(broadcast.meta) if broadcast.meta else b""
    if max(len(topic_b), len(event_b), len(meta_b)) > 255:
        message = broadcast.json_message()
        return None if message is None else encode(vsn, None, None, topic, "broadcast", message)
    header = struct.pack(
        "5B", KIND_USER_BROADCAST, len(topic_b), len(event_b), len(meta_b),
        ENCODING_JSON if broadcast.is_json else ENCODING_BINARY,
    )
    return header + topic_b + event_b + meta_b + broadcast.data
