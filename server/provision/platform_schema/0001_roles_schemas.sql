-- Roles, schemas, JWT helpers and default privileges, shaped like Supabase's.
-- Roles are cluster-wide, so they are created only when missing.
do $$
begin
  if not exists (select from pg_roles where rolname = 'anon') then
    create role anon nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticated') then
    create role authenticated nologin noinherit;
  end if;
  if not exists (select from pg_roles where rolname = 'service_role') then
    create role service_role nologin noinherit bypassrls;
  end if;
  if not exists (select from pg_roles where rolname = 'authenticator') then
    create role authenticator login noinherit;
  end if;
end
$$;

grant anon, authenticated, service_role to authenticator;

create schema if not exists auth;
create schema if not exists storage;
create schema if not exists realtime;
create schema if not exists extensions;

-- Supabase preinstalls these; the embedded build may lack them (gen_random_uuid() is core).
do $$
declare ext text;
begin
  foreach ext in array array['pgcrypto', 'uuid-ossp'] loop
    if exists (select from pg_available_extensions where name = ext) then
      execute format('create extension if not exists %I with schema extensions', ext);
    end if;
  end loop;
end
$$;

grant usage on schema public, extensions to anon, authenticated, service_role;
grant usage on schema auth, storage, realtime to anon, authenticated, service_role;
grant execute on all functions in schema extensions to anon, authenticated, service_role;

-- JWT claims of the current request, as PostgREST and GoTrue set them. The legacy
-- request.jwt.claim.<name> settings are read first, for older code.
create or replace function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

create or replace function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create or replace function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create or replace function auth.email() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

grant execute on function auth.jwt(), auth.uid(), auth.role(), auth.email()
  to anon, authenticated, service_role;

-- What the migrating role creates in public is reachable by the API roles at once;
-- row-level security (when enabled on a table) then decides which rows.
grant all on all tables in schema public to anon, authenticated, service_role;
grant all on all sequences in schema public to anon, authenticated, service_role;
grant all on all functions in schema public to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on routines to anon, authenticated, service_role;
