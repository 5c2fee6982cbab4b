"""The body of every project's migrations/env.py: online migrations only, with the
version table kept in the `supalite` schema (out of reach of the API roles)."""

from __future__ import annotations

import os

from sqlalchemy import create_engine, pool


def run() -> None:
    from alembic import context

    config = context.config
    url = config.attributes.get("sqlalchemy_url")
    if url is None:  # run by the alembic CLI: where `supalite migrate` would run it
        from server.provision.connection import sqlalchemy_url

        # SUPALITE_DB_DIRECT_URL first (server/provision/database.py session_url): DATABASE_URL may be
        # a transaction-mode pooler, where a revision's SET would outlive it on a shared connection.
        url = sqlalchemy_url(os.environ.get("SUPALITE_DB_DIRECT_URL") or os.environ["DATABASE_URL"])
    engine = create_engine(url, poolclass=pool.NullPool)
    with engine.connect() as connection:
        connection.exec_driver_sql("create schema if not exists supalite")
        connection.commit()
        context.configure(connection=connection, version_table_schema="supalite", transactional_ddl=True)
        with context.begin_transaction():
            context.run_migrations()
