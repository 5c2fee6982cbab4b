"""What every service of one server process shares: settings, keys, pools, lifecycle hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # services import this module; importing them back would be a cycle
    from psycopg_pool import AsyncConnectionPool

    from server.auth.jwt import JwtKeys
    from server.config import Settings
    from server.db.health import DatabaseHealth

Hook = Callable[[], Awaitable[None]]


@dataclass
class AppContext:
    settings: Settings
    keys: JwtKeys
    api_pool: AsyncConnectionPool
    admin_pool: AsyncConnectionPool
    health: DatabaseHealth
    on_startup: list[Hook] = field(default_factory=list)
    on_shutdown: list[Hook] = field(default_factory=list)
