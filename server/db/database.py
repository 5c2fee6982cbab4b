"""Which PostgreSQL the server uses: `DATABASE_URL`, or the embedded cluster in the data dir."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from server.auth.jwt import derived_secret
from server.config import ConfigError, Settings
from server.db.embedded import EmbeddedPostgres

API_ROLE = "authenticator"


def authenticator_password(settings: Settings) -> str:
    return settings.authenticator_password or derived_secret(settings, "supalite-authenticator")


def api_conninfo(settings: Settings, owner_url: str) -> str:
    """Same server and database as the owner URL, logged in as `authenticator`."""
    return make_conninfo(owner_url, user=API_ROLE, password=authenticator_password(settings))


def describe(url: str) -> str:
    """host:port/dbname of a URL, without credentials, for messages."""
    try:
        parts = conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        return "(unparsable DATABASE_URL)"
    return f"{parts.get('host', 'localhost')}:{parts.get('port', 5432)}/{parts.get('dbname', '')}"


def check_reachable(url: str, setting: str = "DATABASE_URL") -> None:
    try:
        psycopg.connect(url, connect_timeout=5).close()
    except psycopg.OperationalError as exc:
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else "connection failed"
        raise ConfigError(f"cannot reach the database at {describe(url)}: {reason}") from None
    except psycopg.ProgrammingError as exc:
        raise ConfigError(f"invalid {setting}: {exc}") from None


def sqlalchemy_url(url: str) -> str:
    """A libpq URL or conninfo as the SQLAlchemy psycopg-3 URL alembic needs."""
    from sqlalchemy.engine import URL

    parts = conninfo_to_dict(url)

    def part(name: str, default: str | None = None) -> str | None:
        value = parts.get(name, default)
        return None if value is None else str(value)

    port = part("port")
    return URL.create(
        "postgresql+psycopg",
        username=part("user"),
        password=part("password"),
        host=part("host", "localhost"),
        port=int(port) if port else None,
        database=part("dbname"),
    ).render_as_string(hide_password=False)


def session_url(settings: Settings, owner_url: str) -> str:
    """Where a session's state must hold (LISTEN, the migration lock, DDL, one-off commands):
    SUPALITE_DB_DIRECT_URL when set, as DATABASE_URL is then a transaction-mode pooler that
    hands each transaction whichever server connection is free; else `owner_url`."""
    return settings.db_direct_url or owner_url


@contextmanager
def owner_database(settings: Settings, *, fast_unsafe: bool = False) -> Iterator[str]:
    """Yield the owner URL; start (and finally stop) the embedded cluster when there is no URL."""
    if settings.database_url:
        check_reachable(settings.database_url)
        if settings.db_direct_url:  # LISTEN and migrations: unreachable, said now, not as a realtime outage
            check_reachable(settings.db_direct_url, "SUPALITE_DB_DIRECT_URL")
        yield settings.database_url
        return
    from server.supabase_project.postgres import project_embedded

    # A Supabase project's cluster: the build its extensions need, the CLI's owner password.
    embedded = project_embedded(settings, fast_unsafe=fast_unsafe) or EmbeddedPostgres(
        settings.data_dir, settings.db_port, fast_unsafe=fast_unsafe)
    try:
        yield embedded.start()
    finally:
        embedded.stop()


def running_database_url(settings: Settings) -> str | None:
    """DATABASE_URL, or the URL of the embedded cluster a running server holds; None when stopped."""
    if settings.database_url:
        return settings.database_url
    from server.db.embedded import Cluster

    cluster = Cluster(settings.data_dir)
    port = cluster.running_port()
    return cluster.url(port) if port is not None else None


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
