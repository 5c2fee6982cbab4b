"""Protocol-level bounds: request heads (request line + headers) at 64 KiB, then 431 and the
connection closed without the server holding the rest in memory; websocket messages at
1 MiB, then the socket is closed with 1009 (message too big)."""

from __future__ import annotations

import socket

import httpx
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from server.cli.serve import WS_MAX_MESSAGE_BYTES
from server.serve.http_protocol import MAX_HEAD_BYTES
from tests import harness


def send_raw(server: harness.LiveServer, head: bytes, total: int, chunk: bytes) -> bytes:
    """Send `head`, then `chunk` repeatedly up to `total` bytes (stopping if the server
    closes), and return what the server answered."""
    port = int(server.url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sent = 0
        try:
            sock.sendall(head)
            while sent < total:
                sock.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        answer = b""
        try:
            while True:
                data = sock.recv(65536)
                if not data:
                    break
                answer += data
        except (TimeoutError, ConnectionResetError):
            pass
        return answer


def test_an_8_mb_header_is_refused_with_431_without_growing_memory(live_server: harness.LiveServer) -> None:
    before = harness.process_tree_rss(live_server.process.pid)
    for _ in range(3):
        answer = send_raw(live_server, b"GET /rest/v1/courses HTTP/1.1\r\nHost: x\r\nX-Big: ", 8 * 1024 * 1024, b"a" * 65536)
        assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    grown = harness.process_tree_rss(live_server.process.pid) - before
    assert grown < 30 * 1024 * 1024, f"RSS grew by {grown / 1e6:.1f} MB"


def test_a_head_arriving_whole_over_the_bound_is_refused(live_server: harness.LiveServer) -> None:
    many = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(MAX_HEAD_BYTES // 100 + 10))
    answer = send_raw(live_server, b"GET /health HTTP/1.1\r\nHost: x\r\n" + many + b"\r\n", 0, b"")
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]


def test_a_large_but_legitimate_head_is_served(live_server: harness.LiveServer) -> None:
    response = httpx.get(f"{live_server.url}/health", headers={"cookie": "c=" + "x" * 40_000})
    assert response.status_code == 200
    # and the connection keeps serving requests after a big one
    with httpx.Client() as client:
        for _ in range(3):
            assert client.get(f"{live_server.url}/health", headers={"x-pad": "p" * 30_000}).status_code == 200


def test_a_websocket_message_over_1_mib_closes_the_socket(live_server: harness.LiveServer) -> None:
    url = live_server.url.replace("http://", "ws://") + f"/realtime/v1/websocket?apikey={live_server.anon_key}&vsn=1.0.0"
    with connect(url, max_size=None) as ws:
        ws.send('{"topic":"phoenix","event":"heartbeat","payload":{},"ref":"1"}')
        assert '"ok"' in ws.recv(timeout=10)
        ws.send('{"topic":"realtime:x","event":"broadcast","payload":{"pad":"' + "x" * WS_MAX_MESSAGE_BYTES + '"},"ref":"2"}')
        try:
            ws.recv(timeout=10)
            raise AssertionError("the socket stayed open")
        except ConnectionClosed as closed:
            assert closed.rcvd is not None and closed.rcvd.code == 1009
