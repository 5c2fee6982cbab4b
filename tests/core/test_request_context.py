"""server/core/request_context.py: role and claims per transaction decide what SQL sees."""

from __future__ import annotations

import asyncio
import uuid

import psycopg
import pytest

from server.core.conninfo import api_conninfo
from server.core.pool import make_pool
from server.core.request_context import RequestContext, request_transaction


@pytest.fixture(scope="module")
def secret_table(database_url: str) -> str:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("create table public.secrets (id serial primary key, body text not null)")
        conn.execute("insert into public.secrets (body) values ('a'), ('b')")
        conn.execute("alter table public.secrets enable row level security")
    return "secrets"


def run_as(settings, ctx: RequestContext, query: str, params: list | None = None) -> list[tuple]:
    async def go() -> list[tuple]:
        pool = make_pool(api_conninfo(settings, settings.database_url), 2, "test")
        await pool.open()
        try:
            async with request_transaction(pool, ctx) as conn:
                cur = await conn.execute(query, params)
                return await cur.fetchall()
        finally:
            await pool.close()

    return asyncio.run(go())


def test_auth_functions_read_the_claims_set_by_the_context(settings) -> None:
    sub = str(uuid.uuid4())
    ctx = RequestContext("authenticated", {"sub": sub, "email": "a@example.com", "role": "authenticated"},
                         "POST", "/rest/v1/x", {"x-test": "1"})
    row = run_as(settings, ctx, "select auth.uid()::text, auth.role(), auth.email(), auth.jwt() ->> 'sub',"
                                " current_user, current_setting('request.method'), current_setting('request.path'),"
                                " current_setting('request.headers')::jsonb ->> 'x-test'")[0]
    assert row == (sub, "authenticated", "a@example.com", sub, "authenticated", "POST", "/rest/v1/x", "1")


def test_claims_do_not_leak_into_the_next_transaction(settings) -> None:
    ctx = RequestContext("anon", {"role": "anon"})
    assert run_as(settings, ctx, "select auth.uid()") == [(None,)]


@pytest.mark.parametrize("role,expected", [("anon", 0), ("authenticated", 0), ("service_role", 2)])
def test_rls_without_policy_hides_rows_except_from_service_role(settings, secret_table, role, expected) -> None:
    ctx = RequestContext(role, {"role": role, "sub": str(uuid.uuid4())})
    assert run_as(settings, ctx, "select count(*) from public.secrets") == [(expected,)]


def test_new_public_tables_are_granted_to_api_roles(settings, secret_table) -> None:
    ctx = RequestContext("anon", {"role": "anon"})
    rows = run_as(settings, ctx, "select has_table_privilege('anon', 'public.secrets', 'select'),"
                                 " has_table_privilege('authenticated', 'public.secrets', 'insert')")
    assert rows == [(True, True)]


def test_a_role_the_authenticator_lacks_is_refused(settings) -> None:
    with pytest.raises(psycopg.errors.InsufficientPrivilege):
        run_as(settings, RequestContext("postgres", {"role": "postgres"}), "select 1")
