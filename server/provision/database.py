"""Which PostgreSQL the server uses: `DATABASE_URL`, or the embedded cluster in the data dir."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from server.core.config import Settings
from server.core.conninfo import session_url
from server.provision.connection import check_reachable, running_database_url
from server.provision.embedded import EmbeddedPostgres


@contextmanager
def owner_database(settings: Settings, *, fast_unsafe: bool = False) -> Iterator[str]:
    """Yield the owner URL; start (and finally stop) the embedded cluster when there is no URL."""
    if settings.database_url:
        check_reachable(settings.database_url)
        if settings.db_direct_url:  # LISTEN and migrations: unreachable, said now, not as a realtime outage
            check_reachable(settings.db_direct_url, "SUPALITE_DB_DIRECT_URL")
        yield settings.database_url
        return
    from server.provision.supabase_project.postgres import project_embedded

    # A Supabase project's cluster: the build its extensions need, the CLI's owner password.
    embedded = project_embedded(settings, fast_unsafe=fast_unsafe) or EmbeddedPostgres(
        settings.data_dir, settings.db_port, fast_unsafe=fast_unsafe)
    try:
        yield embedded.start()
    finally:
        embedded.stop()


@contextmanager
def command_database(settings: Settings) -> Iterator[str]:
    """The owner URL for a one-off command (migrate, policies, seed, psql, db reset...).

    Beside a running server the command uses the cluster that server started (and leaves it
    running); otherwise it starts the embedded cluster for the command and stops it after.
    """
    url = running_database_url(settings)
    if url is not None:
        if settings.database_url:
            url = session_url(settings, url)
            check_reachable(url, "SUPALITE_DB_DIRECT_URL" if settings.db_direct_url else "DATABASE_URL")
        yield url
        return
    with owner_database(settings) as owner_url:
        yield owner_url
