-- What SQL written for Supabase (its migrations, `supabase db dump` output, seed files) takes
-- for granted in the database Supabase's image sets up, beyond supalite's own platform:
-- its roles, the graphql_public schema, `extensions` on the search_path, pre-created extensions.

-- Roles of Supabase's image that dumps name as owners and grants name as grantees. Here they
-- only exist, without login or privileges: nothing connects as them.
do $$
declare role_name text;
begin
  foreach role_name in array array[
    'postgres', 'supabase_admin', 'supabase_auth_admin', 'supabase_storage_admin',
    'supabase_realtime_admin', 'supabase_replication_admin', 'supabase_read_only_user',
    'supabase_functions_admin', 'supabase_etl_admin', 'dashboard_user', 'pgbouncer'
  ] loop
    if not exists (select from pg_roles where rolname = role_name) then
      execute format('create role %I nologin', role_name);
    end if;
  end loop;
end
$$;

-- graphql_public: in the CLI's default [api] schemas. Until pg_graphql is enabled, Supabase
-- answers its graphql() with an error saying so; pg_graphql is not available here.
create schema if not exists graphql_public;
grant usage on schema graphql_public to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on tables to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on functions to postgres, anon, authenticated, service_role;
alter default privileges in schema graphql_public grant all on sequences to postgres, anon, authenticated, service_role;

do $$
begin
  if not exists (select from pg_proc p join pg_namespace n on n.oid = p.pronamespace
                 where n.nspname = 'graphql_public' and p.proname = 'graphql') then
    create function graphql_public.graphql(
      "operationName" text default null,
      query text default null,
      variables jsonb default null,
      extensions jsonb default null
    ) returns jsonb
    language sql stable
    as 'select jsonb_build_object(''data'', null, ''errors'', jsonb_build_array(''pg_graphql extension is not enabled.''))';
  end if;
end
$$;
grant execute on all functions in schema graphql_public to postgres, anon, authenticated, service_role;

-- Supabase's postgres role searches `extensions` after public, so seeds and migrations call
-- crypt(), gen_salt(), uuid_generate_v4() unqualified. The database gets the same path for an
-- owner named otherwise (DATABASE_URL); each is skipped where the owner may not set it.
do $$
begin
  if current_user = 'postgres' then
    alter role postgres set search_path = "$user", public, extensions;
  end if;
exception when insufficient_privilege then
  raise notice 'search_path of role postgres left as it is: %', sqlerrm;
end
$$;
do $$
begin
  execute format('alter database %I set search_path = "$user", public, extensions', current_database());
exception when insufficient_privilege then
  raise notice 'search_path of database % left as it is: %', current_database(), sqlerrm;
end
$$;
-- This session too, for the project files applied right after.
select pg_catalog.set_config('search_path', '"$user", public, extensions', false);

-- Extensions Supabase's image creates in `extensions` (pgcrypto and uuid-ossp: 0001), where
-- this PostgreSQL has them and the owner may create them.
do $$
declare ext text;
begin
  foreach ext in array array['pg_stat_statements', 'pgjwt'] loop
    if exists (select from pg_available_extensions where name = ext) then
      begin
        execute format('create extension if not exists %I with schema extensions cascade', ext);
      exception when insufficient_privilege then
        raise notice 'extension % not created: %', ext, sqlerrm;
      end;
    end if;
  end loop;
end
$$;

-- GoTrue's auth.instances (seeds of older projects fill it; nothing here reads it).
create table if not exists auth.instances (
  id uuid primary key,
  uuid uuid,
  raw_base_config text,
  created_at timestamptz,
  updated_at timestamptz
);
revoke all on auth.instances from anon, authenticated;
