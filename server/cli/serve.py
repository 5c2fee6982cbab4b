"""`supalite serve`: the database resolved and migrated, then uvicorn (one process or
several workers) serving server.serve.app."""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys

from server.core.config import ConfigError, Settings


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_bind_allowed(settings: Settings) -> None:
    if settings.uses_demo_secret and not _is_loopback(settings.host) and not settings.dev:
        raise ConfigError(
            f"refusing to serve on {settings.host} with the demo JWT secret: set SUPALITE_JWT_SECRET "
            "(32+ characters) or pass --dev on a development machine"
        )
    if len(settings.jwt_secret) < 32:
        raise ConfigError("SUPALITE_JWT_SECRET must be at least 32 characters long")


GRACEFUL_SHUTDOWN_SECONDS = 3


# A larger websocket message closes the socket (1009). Realtime messages are small JSON;
# Supabase caps broadcast payloads at 256 KB on its free plan.
WS_MAX_MESSAGE_BYTES = 1024 * 1024


def _export_for_workers(settings: Settings, owner_url: str) -> None:
    """Worker processes rebuild Settings from the environment: hand them the resolved values."""
    os.environ["DATABASE_URL"] = owner_url
    os.environ["SUPALITE_HOST"] = settings.host
    os.environ["SUPALITE_PORT"] = str(settings.port)
    os.environ["SUPALITE_DEV"] = "true" if settings.dev else "false"
    os.environ["SUPALITE_DATA_DIR"] = str(settings.data_dir)
    os.environ["SUPALITE_PROJECT_DIR"] = str(settings.project_dir)


def cmd_serve(settings: Settings, args: argparse.Namespace) -> int:
    import uvicorn
    from uvicorn.config import STARTUP_FAILURE

    from server.auth.mail import check_templates as check_mail_templates
    from server.auth.mail import startup_line as mail_startup_line
    from server.core.conninfo import session_url
    from server.core.jwt import anon_key
    from server.provision.database import owner_database
    from server.provision.embedded import check_port_free
    from server.provision.project import migrate
    from server.provision.supabase_project.process import print_warnings as print_project_warnings
    from server.serve.workers import run_workers

    print_project_warnings(settings)
    check_mail_templates(settings)  # a bad template stops the start, never a send
    check_bind_allowed(settings)
    check_port_free(settings.host, settings.port)
    # SIGTERM unwinds like Ctrl-C, so the embedded PostgreSQL is stopped on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with owner_database(settings) as owner_url:
        direct_url = session_url(settings, owner_url)  # migrations and the seed need a session
        if settings.migrate_on_start:
            migrate(settings, direct_url)
        if getattr(args, "seed", False):
            seed_demo_data(settings, direct_url)
        _export_for_workers(settings, owner_url)
        print(f"supalite: serving {settings.api_url} (anon key {anon_key(settings)[:24]}...)", flush=True)
        print(mail_startup_line(settings), flush=True)
        config = uvicorn.Config(
            "server.serve.app:app_from_environment",
            factory=True,
            host=settings.host,
            port=settings.port,
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            log_level=settings.log_level,
            access_log=False,
            lifespan="on",
            http="server.serve.http_protocol:BoundedHttpToolsProtocol",
            ws_max_size=WS_MAX_MESSAGE_BYTES,
            # In-flight requests get this long at SIGTERM; then the lifespan's shutdown (pools,
            # listeners) runs with its own bounds, so the whole stop stays within 10 s.
            timeout_graceful_shutdown=GRACEFUL_SHUTDOWN_SECONDS,
        )
        if settings.workers > 1:
            return run_workers(config, settings.workers)  # a listening socket per worker
        server = uvicorn.Server(config)
        server.run()
        if not server.started:
            return STARTUP_FAILURE
    return 0


def seed_demo_data(settings: Settings, owner_url: str) -> None:
    """The project's seed/seed.py (`serve --seed`, `supalite seed`)."""
    from server.provision.seeding import run_seed

    notes = run_seed(settings, owner_url)
    print("supalite: demo data seeded", flush=True)
    for line in notes:
        print(f"  {line}", flush=True)
