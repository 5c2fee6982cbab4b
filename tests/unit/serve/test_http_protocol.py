"""server.serve.http_protocol.CoalescingTransport: a response head goes out with its body's first
write, and never waits longer than the loop's next turn."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from server.serve.http_protocol import COALESCE_MAX_BYTES, CoalescingTransport

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


# -- keep-alive: one timer per idle period ------------------------------------------------

async def _hello(scope: dict, receive: Callable, send: Callable) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


def _keep_alive_server(timeout: float) -> Callable[[Callable[[int], Awaitable[None]]], None]:
    """Run `body(port)` against a real server of this protocol with that keep-alive timeout."""
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from server.serve.http_protocol import BoundedHttpToolsProtocol

    def run_with(body: Callable[[int], Awaitable[None]]) -> None:
        async def go() -> None:
            config = Config(_hello, timeout_keep_alive=timeout, log_level="warning")  # type: ignore[arg-type]
            config.load()
            state = ServerState()
            server = await asyncio.get_running_loop().create_server(
                lambda: BoundedHttpToolsProtocol(config=config, server_state=state, app_state={}), "127.0.0.1", 0)
            try:
                await body(server.sockets[0].getsockname()[1])
            finally:
                server.close()

        asyncio.run(go())

    return run_with


async def _ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bytes:
    writer.write(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    return await asyncio.wait_for(reader.readuntil(b"ok"), 5)


def test_an_idle_keep_alive_connection_is_closed_after_the_timeout() -> None:
    async def body(port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        assert (await _ask(reader, writer)).startswith(b"HTTP/1.1 200")
        assert await asyncio.wait_for(reader.read(), 5) == b""  # closed by the server, idle
        writer.close()

    _keep_alive_server(0.3)(body)


def test_a_busy_connection_outlives_the_timeout_and_closes_once_idle() -> None:
    async def body(port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(12):  # 1.2 s of requests every 0.1 s: four timeouts of 0.3 s
            assert (await _ask(reader, writer)).startswith(b"HTTP/1.1 200")
            await asyncio.sleep(0.1)
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()

    _keep_alive_server(0.3)(body)
