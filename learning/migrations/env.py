"""Alembic environment: applied by `supalite migrate` (or `alembic upgrade head` with DATABASE_URL,
or SUPALITE_DB_DIRECT_URL when that is set)."""

from server.provision.alembic_env import run

run()
