"""What the hub and the change feed see of a joined channel and of its socket, so that
they import nothing above them (channel.py and socket.py implement these)."""

from __future__ import annotations

from typing import Protocol

from server.realtime.auth import Policies


class Outbox(Protocol):
    """A client's websocket, as frames are queued to it."""

    @property
    def vsn(self) -> str: ...

    def send(self, frame: str | bytes) -> None: ...


class Member(Protocol):
    """A joined channel, as broadcasts, presence diffs and changes are delivered to it."""

    @property
    def socket(self) -> Outbox: ...

    @property
    def topic(self) -> str: ...

    @property
    def sub_topic(self) -> str: ...

    @property
    def private(self) -> bool: ...

    @property
    def self_broadcast(self) -> bool: ...

    @property
    def presence_enabled(self) -> bool: ...

    @property
    def policies(self) -> Policies: ...

    @property
    def replayed_ids(self) -> frozenset[str]: ...

    def stop(self, message: str) -> None: ...
