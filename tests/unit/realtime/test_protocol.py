"""Frames of realtime-js's serializers (vsn 1.0.0 objects, 2.0.0 arrays and binary broadcasts)."""

from __future__ import annotations

import struct

import orjson
import pytest

from server.realtime.protocol import VSN_1, VSN_2, ProtocolError, UserBroadcast, decode, encode, encode_user_broadcast


def user_broadcast_push(join_ref: str, ref: str, topic: str, event: str, payload: bytes, meta: bytes = b"") -> bytes:
    parts = [p.encode() for p in (join_ref, ref, topic, event)] + [meta]
    return struct.pack("7B", 3, *(len(p) for p in parts), 1) + b"".join(parts) + payload


def test_v2_array_and_v1_object() -> None:
    msg = decode('["1","2","realtime:a","phx_join",{"config":{}}]', VSN_2)
    assert (msg.join_ref, msg.ref, msg.topic, msg.event, msg.payload) == ("1", "2", "realtime:a", "phx_join", {"config": {}})
    msg = decode('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"3"}', VSN_1)
    assert (msg.topic, msg.event, msg.ref, msg.join_ref) == ("phoenix", "heartbeat", "3", None)
    assert orjson.loads(encode(VSN_1, "1", "2", "t", "phx_reply", {})) == {
        "join_ref": "1", "ref": "2", "topic": "t", "event": "phx_reply", "payload": {}}


def test_binary_user_broadcast_push_round_trips_to_kind_4() -> None:
    msg = decode(user_broadcast_push("1", "5", "realtime:é", "cursor", b'{"x":1}', b'{"persist":true}'), VSN_2)
    assert msg.event == "broadcast" and msg.topic == "realtime:é" and msg.ref == "5"
    assert msg.payload == UserBroadcast("cursor", b'{"x":1}', True, {"persist": True})
    frame = encode_user_broadcast(VSN_2, "realtime:é", UserBroadcast("cursor", b'{"x":1}'))
    assert isinstance(frame, bytes)
    kind, topic_len, event_len, meta_len, encoding = struct.unpack_from("5B", frame)
    assert (kind, encoding, meta_len) == (4, 1, 0)
    assert frame[5:5 + topic_len].decode() == "realtime:é"
    assert frame[5 + topic_len + event_len:] == b'{"x":1}'
    assert orjson.loads(encode_user_broadcast(VSN_1, "realtime:a", UserBroadcast("e", b"[1]")))["payload"] == {
        "type": "broadcast", "event": "e", "payload": [1]}


@pytest.mark.parametrize("raw", ["not json", '{"a":1}', "[1,2]", b"\x09\x00", b"\x03\x05\x00\x00\x00\x00\x01ab"])
def test_unreadable_frames(raw: str | bytes) -> None:
    with pytest.raises(ProtocolError):
        decode(raw, VSN_2)
