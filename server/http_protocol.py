"""uvicorn's httptools protocol with a bound on a request's head (request line + headers).

httptools itself accepts a header of any size, holding it whole in memory while it arrives,
so one client could send megabytes of header per connection. Here a head larger than
`MAX_HEAD_BYTES` is answered `431 Request Header Fields Too Large` and the connection
closed: counted while it arrives (a head still incomplete after that many bytes) and once
complete (a head that arrived in one read).
"""

from __future__ import annotations

from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

# Generous next to nginx's 32 KiB default: an access token carries the user's metadata.
MAX_HEAD_BYTES = 64 * 1024

_BODY = b'{"message":"Request header fields too large"}'
_RESPONSE_431 = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\n"
    b"content-type: application/json\r\n"
    b"content-length: " + str(len(_BODY)).encode() + b"\r\n"
    b"connection: close\r\n\r\n" + _BODY
)


class HeadTooLarge(Exception):
    pass


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._in_head = True  # between a message's start and its headers' end
        self._head_bytes = 0
        self._too_large = False

    def data_received(self, data: bytes) -> None:
        was_in_head = self._in_head
        super().data_received(data)
        if self._too_large or self.transport.is_closing():
            return
        if was_in_head and self._in_head:  # the whole read was head, and it is not over
            self._head_bytes += len(data)
            if self._head_bytes > MAX_HEAD_BYTES:
                self._refuse()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head = True
        self._head_bytes = 0

    def on_headers_complete(self) -> None:
        size = len(self.url) + sum(len(name) + len(value) + 4 for name, value in self.headers)
        if size > MAX_HEAD_BYTES:
            self._too_large = True
            raise HeadTooLarge  # the parser stops; send_400_response answers 431 instead
        self._in_head = False
        self._head_bytes = 0
        super().on_headers_complete()

    def send_400_response(self, msg: str) -> None:
        if self._too_large:
            self._refuse()
            return
        super().send_400_response(msg)

    def _refuse(self) -> None:
        self._too_large = True
        self.logger.warning("request head over %d bytes refused (431)", MAX_HEAD_BYTES)
        self.transport.write(_RESPONSE_431)
        self.transport.close()
