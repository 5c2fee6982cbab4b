"""Alembic environment: applied by `supalite migrate` (or `alembic upgrade head` with DATABASE_URL)."""

from server.provision.alembic_env import run

run()
