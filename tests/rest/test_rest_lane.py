"""/rest/v1 through the REST lane (server.serve.rest_lane), over raw HTTP/1.1 on one connection:
what uvicorn's own cycle did for these requests still holds (pipelining in order, with
other services' requests between; keep-alive and HTTP/1.0; chunked bodies; Expect:
100-continue; HEAD), and a header a database function sets cannot split the response."""

from __future__ import annotations

import json
import socket
from urllib.parse import urlsplit

import httpx
import pytest

from tests import harness
from tests.rest import fixture

TIMEOUT = 10


class Conn:
    """One HTTP/1.1 connection, read response by response (Content-Length framed)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host = parts.netloc
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=TIMEOUT)
        self.buffer = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buffer += chunk
        return bool(chunk)

    def response(self, method: str = "GET") -> tuple[str, dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buffer:
            assert self._fill(), "connection closed before a response"
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        status, *lines = head.decode("latin-1").split("\r\n")
        headers = {}
        for line in lines:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = 0 if method == "HEAD" or status.split()[1] in ("100", "204", "304") else int(headers["content-length"])
        while len(self.buffer) < length:
            assert self._fill(), "connection closed inside a body"
        body, self.buffer = self.buffer[:length], self.buffer[length:]
        return status, headers, body

    def closed(self) -> bool:
        return not self.buffer and not self._fill()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def conn(rest_server):
    c = Conn(rest_server.url)
    yield c
    c.close()


def request(conn: Conn, key: str, method: str, target: str, body: bytes | None = None,
            extra: str = "", version: str = "1.1") -> bytes:
    lines = [f"{method} {target} HTTP/{version}", f"Host: {conn.host}", f"apikey: {key}",
             f"Authorization: Bearer {key}"]
    if body is not None:
        lines += ["Content-Type: application/json", f"Content-Length: {len(body)}"]
    head = "\r\n".join(lines) + "\r\n" + extra + "\r\n"
    return head.encode() + (body or b"")


def test_pipelined_requests_are_answered_in_order_with_other_services_between(conn, rest_server) -> None:
    key = rest_server.anon_key
    conn.send(request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.2")
              + request(conn, key, "GET", "/auth/v1/health")
              + request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.1")
              + request(conn, key, "POST", "/rest/v1/rpc/fx_add", b'{"a": 40, "b": 2}'))
    first, health, second, rpc = (conn.response() for _ in range(4))
    assert first[0].startswith("HTTP/1.1 200") and json.loads(first[2]) == [{"id": 2}]
    assert health[0].startswith("HTTP/1.1 200") and "name" in json.loads(health[2])
    assert json.loads(second[2]) == [{"id": 1}]
    assert rpc[2] == b"42"
    assert first[1]["content-range"] == "0-0/*" and first[1]["access-control-allow-origin"] == "*"
    assert "date" in first[1] and first[1]["content-type"] == "application/json; charset=utf-8"


def test_keep_alive_and_http_1_0(conn, rest_server) -> None:
    key = rest_server.anon_key
    for book in (1, 2, 3):
        conn.send(request(conn, key, "GET", f"/rest/v1/fx_books?select=id&id=eq.{book}"))
        status, headers, body = conn.response()
        assert json.loads(body) == [{"id": book}] and "connection" not in headers
    conn.send(request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.1", version="1.0"))
    status, headers, body = conn.response()
    assert status.startswith("HTTP/1.1 200") and headers["connection"] == "close"
    assert conn.closed()


def test_connection_close_is_honoured(conn, rest_server) -> None:
    key = rest_server.anon_key
    conn.send(request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.1", extra="Connection: close\r\n"))
    status, headers, _ = conn.response()
    assert status.startswith("HTTP/1.1 200")
    assert headers["connection"] == "close" and conn.closed()


def test_a_chunked_body(conn, rest_server) -> None:
    key = rest_server.anon_key
    pieces = [b'{"payload": ', b'{"deep": [1, 2, ', b"3]}}"]
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    head = (f"POST /rest/v1/rpc/fx_echo HTTP/1.1\r\nHost: {conn.host}\r\napikey: {key}\r\n"
            "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    conn.send(head + chunked)
    status, _, body = conn.response()
    assert status.startswith("HTTP/1.1 200") and json.loads(body) == {"deep": [1, 2, 3]}


def test_expect_100_continue(conn, rest_server) -> None:
    key = rest_server.anon_key
    body = b'{"a": 1, "b": 2}'
    conn.send(request(conn, key, "POST", "/rest/v1/rpc/fx_add", None,
                      extra=f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\nExpect: 100-continue\r\n"))
    interim = conn.response()
    assert interim[0].startswith("HTTP/1.1 100")
    conn.send(body)
    status, _, answer = conn.response()
    assert status.startswith("HTTP/1.1 200") and answer == b"3"


def test_head_has_no_body(conn, rest_server) -> None:
    conn.send(request(conn, rest_server.anon_key, "HEAD", "/rest/v1/fx_books?select=id")
              + request(conn, rest_server.anon_key, "GET", "/rest/v1/fx_books?select=id&id=eq.1"))
    status, headers, body = conn.response("HEAD")
    assert status.startswith("HTTP/1.1 200") and body == b"" and headers["content-length"] == "0"
    assert json.loads(conn.response()[2]) == [{"id": 1}]  # the next response starts where it should


def test_a_function_cannot_split_the_response_with_a_header(conn, rest_server) -> None:
    key = rest_server.anon_key
    for name, value in (("X-Evil", "a\r\nSet-Cookie: stolen=1"), ("X-Evil", "a\nb"), ("Bad Name", "x")):
        target = "/rest/v1/rpc/fx_header?" + f"name={name}&value={value}".replace("\r", "%0D").replace("\n", "%0A").replace(" ", "%20")
        conn.send(request(conn, key, "GET", target))
        status, headers, body = conn.response()
        assert status.startswith("HTTP/1.1 500") and "set-cookie" not in headers and "x-evil" not in headers
        assert json.loads(body)["code"] == "PGRST111"
    conn.send(request(conn, key, "GET", "/rest/v1/rpc/fx_header?name=X-Fine&value=yes"))
    status, headers, body = conn.response()
    assert status.startswith("HTTP/1.1 200") and headers["x-fine"] == "yes" and body == b'"set"'


def test_a_client_leaving_mid_body_leaves_the_server_serving(rest_server) -> None:
    key = rest_server.anon_key
    leaving = Conn(rest_server.url)
    leaving.send(request(leaving, key, "POST", "/rest/v1/rpc/fx_add", b'{"a": 1, "b": 2}')[:-6])
    leaving.close()
    after = Conn(rest_server.url)
    try:
        after.send(request(after, key, "POST", "/rest/v1/rpc/fx_add", b'{"a": 1, "b": 2}'))
        assert after.response()[2] == b"3"
    finally:
        after.close()


def _raw_head(conn: Conn) -> bytes:
    """The next response's head as sent (repeated headers kept), left in the buffer."""
    while b"\r\n\r\n" not in conn.buffer:
        assert conn._fill(), "connection closed before a response"
    return conn.buffer.partition(b"\r\n\r\n")[0].lower()


def test_a_preflight_names_the_allowed_origin_once(conn, rest_server) -> None:
    # Browsers refuse a preflight whose Access-Control-Allow-Origin is "*, *".
    conn.send(f"OPTIONS /rest/v1/fx_books HTTP/1.1\r\nHost: {conn.host}\r\nOrigin: https://app.example\r\n"
              "Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: apikey, authorization\r\n\r\n"
              .encode())
    assert _raw_head(conn).count(b"\r\naccess-control-allow-origin:") == 1
    status, headers, _ = conn.response()
    assert status.startswith("HTTP/1.1 200") and headers["access-control-allow-headers"] == "apikey, authorization"


def test_a_function_cannot_frame_the_body_itself(conn, rest_server) -> None:
    key = rest_server.anon_key
    for name, value in (("Transfer-Encoding", "chunked"), ("Content-Length", "0"), ("Content-Length", "999")):
        conn.send(request(conn, key, "GET", f"/rest/v1/rpc/fx_header?name={name}&value={value}"))
        raw = _raw_head(conn)
        assert raw.count(b"\r\ncontent-length:") == 1 and b"\r\ntransfer-encoding:" not in raw
        status, headers, body = conn.response()
        assert status.startswith("HTTP/1.1 200") and headers["content-length"] == "5" and body == b'"set"'
    conn.send(request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.1"))
    assert json.loads(conn.response()[2]) == [{"id": 1}]  # the connection still reads right


def test_a_204_or_304_a_function_sets_has_no_body(conn, rest_server) -> None:
    # The client reads no body after a 204 or 304: one sent would be taken as the next response.
    key = rest_server.anon_key
    for code in (204, 304):
        conn.send(request(conn, key, "GET", f"/rest/v1/rpc/fx_status?code={code}")
                  + request(conn, key, "GET", "/rest/v1/fx_books?select=id&id=eq.1"))
        status, _, body = conn.response()
        assert status.startswith(f"HTTP/1.1 {code}") and body == b""
        assert json.loads(conn.response()[2]) == [{"id": 1}]


def test_with_the_lane_off_rest_answers_the_same_through_asgi(rest_server) -> None:
    """SUPALITE_REST_LANE=off (for ASGI middleware that must see REST requests): the same
    answers, head and body, from the ASGI app."""
    off = harness.start_server(rest_server.database_url, args=["--no-migrate"], extra_env={"SUPALITE_REST_LANE": "off"})
    try:
        for server in (rest_server, off):
            fixture.wait_visible(server.url, server.anon_key)
        answers = []
        for server in (rest_server, off):
            headers = {"apikey": server.anon_key}
            found = httpx.get(f"{server.url}/rest/v1/", headers=headers)
            missing = httpx.get(f"{server.url}/rest/v1/no_such_table", headers=headers)
            answers.append((found.status_code, found.headers["content-type"], missing.status_code, missing.json()))
        assert answers[0] == answers[1]
        assert answers[1][2] == 404 and answers[1][3]["code"] == "PGRST205"
    finally:
        off.stop()
