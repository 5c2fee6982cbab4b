"""`supalite gen types typescript`: the `Database` type supabase-js takes, generated from
the database as `supabase gen types typescript` does."""

from __future__ import annotations

from server.typegen.introspect import introspect
from server.typegen.typescript import POSTGREST_VERSION, generate


def generate_typescript(conninfo: str, schemas: list[str] | None = None) -> str:
    """The TypeScript module for `schemas` (default: public) of the database at `conninfo`."""
    return generate(introspect(conninfo, schemas or ["public"]), POSTGREST_VERSION)


__all__ = ["generate_typescript"]
