"""How a server process connects: the API pool as `authenticator`, sessions where the
deployment gives them (a pooler in front of PostgreSQL holds no session state)."""

from __future__ import annotations

from psycopg.conninfo import make_conninfo

from server.core.config import Settings
from server.core.jwt import derived_secret

API_ROLE = "authenticator"


def authenticator_password(settings: Settings) -> str:
    return settings.authenticator_password or derived_secret(settings, "supalite-authenticator")


def api_conninfo(settings: Settings, owner_url: str) -> str:
    """Same server and database as the owner URL, logged in as `authenticator`."""
    return make_conninfo(owner_url, user=API_ROLE, password=authenticator_password(settings))


def session_url(settings: Settings, owner_url: str) -> str:
    """Where a session's state must hold (LISTEN, the migration lock, DDL, one-off commands):
    SUPALITE_DB_DIRECT_URL when set, as DATABASE_URL is then a transaction-mode pooler that
    hands each transaction whichever server connection is free; else `owner_url`."""
    return settings.db_direct_url or owner_url
