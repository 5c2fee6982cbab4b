"""The `statement_timeout` each API role is given, read from the roles' own settings.

`ALTER ROLE anon SET statement_timeout = '3s'` takes effect at login only, and API requests
never log in as anon: they switch to it inside a transaction. So, as PostgREST does with a
role's settings, the server reads them (at start and on every schema reload) and sets them
transaction-locally with the role and the claims.
"""

from __future__ import annotations

from typing import Any

from psycopg import AsyncConnection

# Database-specific settings come after the cluster-wide ones, so they win.
_SQL = """
select r.rolname, split_part(cfg, '=', 2)
from pg_catalog.pg_db_role_setting s
join pg_catalog.pg_roles r on r.oid = s.setrole
cross join lateral unnest(s.setconfig) cfg
where s.setdatabase in (0, (select oid from pg_catalog.pg_database where datname = current_database()))
  and cfg like 'statement\\_timeout=%'
order by s.setdatabase
"""

# role -> statement_timeout text; a role without one resets to the login default (NULL).
_timeouts: dict[str, str] = {}


def statement_timeout(role: str) -> str | None:
    return _timeouts.get(role)


async def load(conn: AsyncConnection[Any]) -> None:
    """Re-read every role's statement_timeout (one catalog query)."""
    cur = await conn.execute(_SQL)
    found = {str(role): str(value) for role, value in await cur.fetchall()}
    _timeouts.clear()
    _timeouts.update(found)
