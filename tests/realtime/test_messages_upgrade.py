"""A database whose realtime.messages is 0300's plain table is upgraded at start to upstream's
partitioned one, keeping its rows, its policies, its RLS flags and its grants; a broadcast row
inserted afterwards is published at commit."""

from __future__ import annotations

import psycopg

from server.provision.migrate import apply_platform_schema

PLAIN = """
drop table realtime.messages;
create table realtime.messages (
  id uuid primary key default gen_random_uuid(), topic text not null, extension text not null, payload jsonb,
  event text, private boolean default false, updated_at timestamp not null default now(),
  inserted_at timestamp not null default now());
create index messages_inserted_at_idx on realtime.messages (inserted_at);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;
grant select on realtime.messages to authenticator;
create policy kept_read on realtime.messages for select to authenticated using (realtime.topic() = 'kept');
create policy kept_write on realtime.messages as restrictive for insert to authenticated, anon with check (extension = 'broadcast');
insert into realtime.messages (topic, extension, payload, event) values ('kept', 'broadcast', '{"old": true}', 'old');
delete from supalite.platform_migrations where version = '0340_realtime_broadcast.sql';
"""


def test_a_plain_messages_table_becomes_the_partitioned_one(database_url: str) -> None:
    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute(PLAIN)
        before = conn.execute("select coalesce(max(id), 0) from realtime.bus").fetchone()
        assert apply_platform_schema(conn) == ["0340_realtime_broadcast.sql"]
        assert conn.execute("select relkind from pg_class where oid = 'realtime.messages'::regclass").fetchone() == ("p",)
        assert conn.execute("select topic, event, payload from realtime.messages").fetchall() == [
            ("kept", "old", {"old": True})]
        policies = conn.execute("select policyname, permissive, roles, cmd, qual, with_check from pg_policies"
                                " where schemaname = 'realtime' and tablename = 'messages' order by 1").fetchall()
        assert policies == [
            ("kept_read", "PERMISSIVE", ["authenticated"], "SELECT", "(realtime.topic() = 'kept'::text)", None),
            ("kept_write", "RESTRICTIVE", ["anon", "authenticated"], "INSERT", None, "(extension = 'broadcast'::text)")]
        grants = set(conn.execute("select grantee, privilege_type from information_schema.role_table_grants"
                                  " where table_schema = 'realtime' and table_name = 'messages'").fetchall())
        assert {("anon", "INSERT"), ("authenticated", "SELECT"), ("service_role", "UPDATE"),
                ("authenticator", "SELECT")} <= grants
        assert conn.execute("select relrowsecurity from pg_class where oid = 'realtime.messages'::regclass").fetchone() == (True,)
        # Old rows are not published again; a new one is, once committed.
        assert conn.execute("select count(*) from realtime.bus where id > %s", before).fetchone() == (0,)
        conn.execute("""select realtime.send('{"new": true}', 'new', 'kept')""")
        bodies = [r[0] for r in conn.execute("select body from realtime.bus where id > %s", before)]
    assert len(bodies) == 1 and '"e":"new"' in bodies[0].replace(" ", "")
