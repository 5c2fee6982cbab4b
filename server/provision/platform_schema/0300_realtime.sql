-- Realtime: the supabase_realtime publication, realtime.messages (private channel
-- authorization and database broadcasts), realtime.topic(), and change capture.
--
-- Why triggers + a change log + NOTIFY rather than logical decoding: a trigger writes each
-- row change of a published table into realtime.changes inside the writing transaction, so
-- the change commits (or rolls back) with it and survives any server process restarting;
-- NOTIFY (delivered only at commit) wakes every process's listener. Every process reads the
-- log with its own cursor, so several workers and replicas share the same changes with no
-- replication slot each, and it works on any PostgreSQL, including ones running without
-- wal_level=logical.

do $$
begin
  if not exists (select from pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
end
$$;

-- Messages of channels: policies on this table decide who may join (SELECT) and send
-- (INSERT) on a private channel; realtime.topic() is the channel being checked.
create table if not exists realtime.messages (
  id uuid primary key default gen_random_uuid(),
  topic text not null,
  extension text not null,
  payload jsonb,
  event text,
  private boolean default false,
  updated_at timestamp not null default now(),
  inserted_at timestamp not null default now()
);
create index if not exists messages_inserted_at_idx on realtime.messages (inserted_at);
alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;

create or replace function realtime.topic() returns text
language sql stable
as $$
  select nullif(current_setting('realtime.topic', true), '')::text
$$;
grant execute on function realtime.topic() to anon, authenticated, service_role;

-- Server processes alive: each refreshes its row; presences and subscriptions of a process
-- that stopped refreshing are swept by the others.
create table if not exists realtime.nodes (
  id uuid primary key,
  seen_at timestamptz not null default now()
);

-- One row per (postgres_changes binding, table) of a connected channel. The capture
-- trigger logs changes only for tables someone subscribes to; the RLS check reads the
-- subscriber's role and claims from here.
create table if not exists realtime.subscription (
  id bigserial primary key,
  subscription_id uuid not null,
  entity regclass not null,
  filters jsonb not null default '[]',
  claims jsonb not null,
  claims_role text not null,
  node uuid not null,
  created_at timestamp not null default timezone('utc', now())
);
create index if not exists subscription_entity_idx on realtime.subscription (entity);
create index if not exists subscription_node_idx on realtime.subscription (node);

-- The change log. `xid` orders it by transaction: a reader only takes rows of transactions
-- older than the oldest one still running (pg_snapshot_xmin), so a change that commits late
-- is never skipped, and its cursor (xid, id) never delivers a row twice.
create table if not exists realtime.changes (
  id bigserial primary key,
  xid xid8 not null default pg_current_xact_id(),
  entity oid not null,
  schema_name text not null,
  table_name text not null,
  action text not null,
  record jsonb,
  old_record jsonb,
  created_at timestamptz not null default clock_timestamp()
);
create index if not exists changes_xid_idx on realtime.changes (xid, id);
create index if not exists changes_created_at_idx on realtime.changes (created_at);

-- Presence entries, shared by every process (one per tracked channel).
create table if not exists realtime.presences (
  phx_ref text primary key,
  topic text not null,
  private boolean not null,
  presence_key text not null,
  node uuid not null,
  meta jsonb not null default '{}',
  updated_at timestamptz not null default now()
);
create index if not exists presences_topic_idx on realtime.presences (topic, private);

revoke all on realtime.subscription, realtime.changes, realtime.presences, realtime.nodes
  from anon, authenticated, service_role;

create or replace function realtime.capture_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  identity char;
  old_image jsonb;
begin
  if not exists (select 1 from realtime.subscription s where s.entity = tg_relid) then
    return null;
  end if;
  if tg_op <> 'INSERT' then
    select c.relreplident into identity from pg_catalog.pg_class c where c.oid = tg_relid;
    if identity = 'f' then
      old_image := to_jsonb(old);
    elsif tg_op = 'DELETE' then
      -- The replica identity of a default table: its primary key.
      select jsonb_object_agg(a.attname, to_jsonb(old) -> a.attname) into old_image
      from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = tg_relid and i.indisprimary;
    end if;
  end if;
  insert into realtime.changes (entity, schema_name, table_name, action, record, old_record)
  values (tg_relid, tg_table_schema, tg_table_name, tg_op,
          case when tg_op = 'DELETE' then null else to_jsonb(new) end, old_image);
  perform pg_notify('realtime_changes', '');
  return null;
end
$$;

-- Install the capture trigger on every table of the publication, remove it from tables
-- that left it. Runs after ALTER/CREATE/DROP PUBLICATION (event trigger) and when a
-- subscription is made (for databases where the event trigger could not be created).
create or replace function realtime.sync_capture_triggers() returns void
language plpgsql security definer set search_path = ''
as $$
declare
  rel regclass;
begin
  for rel in
    select format('%I.%I', pt.schemaname, pt.tablename)::regclass
    from pg_catalog.pg_publication_tables pt
    where pt.pubname = 'supabase_realtime'
      and not exists (
        select 1 from pg_catalog.pg_trigger t
        where t.tgrelid = format('%I.%I', pt.schemaname, pt.tablename)::regclass
          and t.tgname = 'supalite_realtime_capture')
  loop
    execute format('create trigger supalite_realtime_capture after insert or update or delete on %s'
                   ' for each row execute function realtime.capture_change()', rel);
  end loop;
  for rel in
    select t.tgrelid::regclass from pg_catalog.pg_trigger t
    where t.tgname = 'supalite_realtime_capture'
      and t.tgrelid not in (
        select format('%I.%I', pt.schemaname, pt.tablename)::regclass
        from pg_catalog.pg_publication_tables pt where pt.pubname = 'supabase_realtime')
  loop
    execute format('drop trigger supalite_realtime_capture on %s', rel);
  end loop;
end
$$;

create or replace function realtime.on_publication_change() returns event_trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform realtime.sync_capture_triggers();
end
$$;

-- Event triggers need a superuser; without one, subscriptions install the triggers.
do $$
begin
  if not exists (select from pg_event_trigger where evtname = 'supalite_realtime_publication') then
    create event trigger supalite_realtime_publication on ddl_command_end
      when tag in ('CREATE PUBLICATION', 'ALTER PUBLICATION', 'DROP PUBLICATION', 'CREATE TABLE')
      execute function realtime.on_publication_change();
  end if;
exception when insufficient_privilege then
  raise notice 'realtime: no event trigger (not a superuser); capture triggers are installed on subscribe';
end
$$;

-- For a batch of logged changes, which subscriptions may see each one, checked as each
-- subscriber's role and claims, in one call: per role, the columns it may select; per
-- subscriber, whether the row (as logged) is visible through its RLS policies now.
-- batch: [{"k": n, "change": realtime.changes id, "ids": [realtime.subscription ids]}]
create or replace function realtime.check_changes(batch jsonb)
returns table (k int, role_name text, ids bigint[], cols jsonb, denied boolean, rls boolean, pk text[])
language plpgsql
as $$
declare
  item jsonb;
  ent regclass;
  act text;
  rec jsonb;
  check_sql text;
  sub record;
  visible boolean;
begin
  for item in select value from jsonb_array_elements(batch) loop
    k := (item ->> 'k')::int;
    select c.entity::regclass, c.action, c.record into ent, act, rec
    from realtime.changes c where c.id = (item ->> 'change')::bigint;
    continue when ent is null;
    select c.relrowsecurity into rls from pg_catalog.pg_class c where c.oid = ent;
    select array_agg(a.attname::text order by a.attnum) into pk
    from pg_catalog.pg_index i
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = ent and i.indisprimary;
    check_sql := null;
    -- PREPARE outlives a rolled-back call: drop a leftover one first.
    if exists (select 1 from pg_catalog.pg_prepared_statements where name = 'realtime_rls_check') then
      deallocate realtime_rls_check;
    end if;
    if rls and act <> 'DELETE' and pk is not null then
      -- The row must still be there, unchanged, and visible to the subscriber.
      check_sql := format(
        'select exists (select 1 from %s t, jsonb_populate_record(null::%s, $1) r where %s and to_jsonb(t) = $1)',
        ent, ent,
        (select string_agg(format('t.%I = r.%I', n, n), ' and ') from unnest(pk) n));
      execute 'prepare realtime_rls_check(jsonb) as ' || check_sql;
    end if;
    for role_name in
      select distinct s.claims_role from realtime.subscription s
      where s.id in (select value::bigint from jsonb_array_elements_text(item -> 'ids'))
    loop
      select coalesce(jsonb_agg(jsonb_build_object('name', a.attname, 'type', t.typname) order by a.attnum), '[]')
      into cols
      from pg_catalog.pg_attribute a join pg_catalog.pg_type t on t.oid = a.atttypid
      where a.attrelid = ent and a.attnum > 0 and not a.attisdropped
        and pg_catalog.has_column_privilege(role_name, ent, a.attname, 'SELECT');
      denied := pk is null or not coalesce((
        select bool_and(pg_catalog.has_column_privilege(role_name, ent, n, 'SELECT')) from unnest(pk) n), false);
      ids := '{}';
      for sub in
        select s.id, s.claims from realtime.subscription s
        where s.claims_role = role_name
          and s.id in (select value::bigint from jsonb_array_elements_text(item -> 'ids'))
      loop
        if check_sql is null or denied then
          ids := ids || sub.id;
        else
          perform set_config('role', role_name, true),
                  set_config('request.jwt.claims', sub.claims::text, true),
                  set_config('request.jwt.claim.sub', coalesce(sub.claims ->> 'sub', ''), true),
                  set_config('request.jwt.claim.role', coalesce(sub.claims ->> 'role', ''), true);
          execute format('execute realtime_rls_check(%L)', rec) into visible;
          perform set_config('role', 'none', true);
          if visible then
            ids := ids || sub.id;
          end if;
        end if;
      end loop;
      return next;
    end loop;
    if check_sql is not null then
      deallocate realtime_rls_check;
    end if;
  end loop;
  perform set_config('role', 'none', true),
          set_config('request.jwt.claims', '', true),
          set_config('request.jwt.claim.sub', '', true),
          set_config('request.jwt.claim.role', '', true);
end
$$;
revoke all on function realtime.check_changes(jsonb) from public;

-- Broadcast from the database (triggers, functions): stored, then announced to every
-- server process, which pushes it to the channel's subscribers.
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql security definer set search_path = ''
as $$
declare
  message_id uuid;
begin
  insert into realtime.messages (payload, event, topic, private, extension)
  values (payload, event, topic, private, 'broadcast')
  returning id into message_id;
  perform pg_notify('realtime_bus', json_build_object('k', 'm', 'id', message_id)::text);
end
$$;
grant execute on function realtime.send(jsonb, text, text, boolean) to authenticated, service_role;
