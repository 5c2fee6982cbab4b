"""What every service of one server process shares: settings, keys, pools, the LISTEN
connection, lifecycle hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # services import this module; importing them back would be a cycle
    from server.auth.jwt import JwtKeys
    from server.config import Settings
    from server.db.health import DatabaseHealth
    from server.db.listener import Listener
    from server.db.pool import Pool

Hook = Callable[[], Awaitable[None]]


@dataclass
class AppContext:
    settings: Settings
    keys: JwtKeys
    api_pool: Pool  # as authenticator: every caller's requests, under the caller's role
    admin_pool: Pool  # as the owner: the platform's own bookkeeping
    listener: Listener  # the process's one LISTEN connection
    health: DatabaseHealth
    on_startup: list[Hook] = field(default_factory=list)
    on_shutdown: list[Hook] = field(default_factory=list)
