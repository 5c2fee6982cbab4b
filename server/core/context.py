"""What every service of one server process shares: settings, keys, pools, the LISTEN
connection, lifecycle hooks."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from server.core.config import Settings
from server.core.conninfo import api_conninfo, session_url
from server.core.health import DatabaseHealth, check_pools
from server.core.jwt import JwtKeys, keys_from_settings
from server.core.listener import Listener
from server.core.pool import Pool, make_pool

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


def build_context(settings: Settings) -> AppContext:
    """The pools, LISTEN connection and keys of one process (started by the app's lifespan)."""
    if not settings.database_url:
        raise RuntimeError("create_app needs settings.database_url (supalite serve resolves it)")
    watchdog = DatabaseHealth(settings.database_url)
    ctx = AppContext(
        settings=settings,
        keys=keys_from_settings(settings),
        api_pool=make_pool(api_conninfo(settings, settings.database_url), settings.db_pool_size, "api", watchdog,
                           reserve=settings.db_pool_reserve, slow_budget=settings.db_pool_slow_ms / 1000),
        admin_pool=make_pool(settings.database_url, max(2, settings.db_pool_size // 2), "admin", watchdog),
        listener=Listener(session_url(settings, settings.database_url)),  # LISTEN needs a session
        health=watchdog,
    )

    async def drop_stale_connections() -> None:
        await check_pools([ctx.api_pool, ctx.admin_pool])

    watchdog.on_recover.append(drop_stale_connections)
    return ctx
