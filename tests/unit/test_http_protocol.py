"""server.http_protocol.CoalescingTransport: a response head goes out with its body's first
write, and never waits longer than the loop's next turn."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from server.http_protocol import COALESCE_MAX_BYTES, CoalescingTransport

HEAD = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n"


class Recorder:
    """The socket side: what was written, one entry per write() call."""

    def __init__(self) -> None:
        self.writes: list[bytes] = []
        self.closed = False

    def write(self, data: bytes) -> None:
        self.writes.append(bytes(data))

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def get_extra_info(self, name: str) -> str:
        return f"info {name}"


def run(body: Callable[[CoalescingTransport, Recorder], Awaitable[None]]) -> Recorder:
    recorder = Recorder()

    async def go() -> None:
        await body(CoalescingTransport(recorder), recorder)

    asyncio.run(go())
    return recorder


def test_head_and_small_body_in_one_write() -> None:
    async def body(transport: CoalescingTransport, recorder: Recorder) -> None:
        transport.write(HEAD)
        transport.write(b"{}")
        await asyncio.sleep(0)

    assert run(body).writes == [HEAD + b"{}"]


def test_a_large_body_follows_its_head() -> None:
    big = b"x" * (COALESCE_MAX_BYTES + 1)

    async def body(transport: CoalescingTransport, recorder: Recorder) -> None:
        transport.write(HEAD)
        transport.write(big)

    assert run(body).writes == [HEAD, big]


def test_a_head_whose_body_comes_later_leaves_at_the_next_turn() -> None:
    seen: list[list[bytes]] = []

    async def body(transport: CoalescingTransport, recorder: Recorder) -> None:
        transport.write(HEAD)
        await asyncio.sleep(0)  # the handler waits (a stream's first chunk)
        seen.append(list(recorder.writes))
        transport.write(b"chunk")

    recorder = run(body)
    assert seen == [[HEAD]]
    assert recorder.writes == [HEAD, b"chunk"]


def test_close_sends_a_held_head_first_and_other_data_passes_at_once() -> None:
    async def body(transport: CoalescingTransport, recorder: Recorder) -> None:
        transport.write(b"websocket frame")
        transport.write(HEAD)
        transport.close()
        assert transport.get_extra_info("peername") == "info peername"

    recorder = run(body)
    assert recorder.writes == [b"websocket frame", HEAD] and recorder.closed
