"""Reaching a PostgreSQL: the URL a running server uses, whether it answers, and in the form
alembic wants it."""

from __future__ import annotations

import psycopg
from psycopg.conninfo import conninfo_to_dict

from server.core.config import ConfigError, Settings
from server.provision.embedded import Cluster


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


def running_database_url(settings: Settings) -> str | None:
    """DATABASE_URL, or the URL of the embedded cluster a running server holds; None when stopped."""
    if settings.database_url:
        return settings.database_url
    cluster = Cluster(settings.data_dir)
    port = cluster.running_port()
    return cluster.url(port) if port is not None else None
