-- Realtime: broadcast from the database (realtime.send, realtime.send_binary,
-- realtime.broadcast_changes) as current Realtime defines it, realtime.messages in its
-- current shape (partitioned by day of inserted_at), and one ordered log for every message
-- that crosses server processes.
--
-- Upstream reads realtime.messages inserts from a logical replication slot, so a message is
-- delivered when (and only if) its transaction commits. Here a deferred constraint trigger
-- appends each broadcast row to realtime.bus at commit, under the lock the change log uses
-- (0310), so bus ids follow commit order: every process reads the bus with its own cursor
-- ("id > last read"), woken by NOTIFY, and a listener that reconnects, or a notification
-- that is lost, loses nothing. The server's own broadcasts and presence diffs go through the
-- same log (realtime.bus_publish).

-- 1. realtime.messages as upstream has it now: partitioned by range of inserted_at (a
--    partition per day, a default one for the rest), primary key (id, inserted_at), a binary
--    payload beside the JSON one, skip_broadcast for stored-only rows. 0300 made a plain
--    table: it is rebuilt with its rows, policies, RLS flags and grants.
do $$
declare
  r record;
  roles_sql text;
begin
  if exists (select from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'realtime' and c.relname = 'messages' and c.relkind = 'r') then
    alter table realtime.messages rename to messages_old;
    alter table realtime.messages_old rename constraint messages_pkey to messages_old_pkey;
    alter index if exists realtime.messages_inserted_at_idx rename to messages_old_inserted_at_idx;
  end if;

  create table if not exists realtime.messages (
    topic text not null,
    extension text not null,
    payload jsonb,
    event text,
    private boolean default false,
    updated_at timestamp without time zone not null default now(),
    inserted_at timestamp without time zone not null default now(),
    id uuid not null default gen_random_uuid(),
    binary_payload bytea,
    skip_broadcast boolean not null default false,
    constraint messages_payload_exclusive check (payload is null or binary_payload is null),
    constraint messages_pkey primary key (id, inserted_at)
  ) partition by range (inserted_at);
  create table if not exists realtime.messages_default partition of realtime.messages default;

  if exists (select from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
             where n.nspname = 'realtime' and c.relname = 'messages_old') then
    insert into realtime.messages (topic, extension, payload, event, private, updated_at, inserted_at, id)
    select topic, extension, payload, event, private, updated_at, inserted_at, id from realtime.messages_old;

    if (select c.relrowsecurity from pg_catalog.pg_class c where c.oid = 'realtime.messages_old'::regclass) then
      alter table realtime.messages enable row level security;
    end if;
    if (select c.relforcerowsecurity from pg_catalog.pg_class c where c.oid = 'realtime.messages_old'::regclass) then
      alter table realtime.messages force row level security;
    end if;

    for r in
      select p.policyname, p.permissive, p.cmd, p.roles, p.qual, p.with_check
      from pg_catalog.pg_policies p
      where p.schemaname = 'realtime' and p.tablename = 'messages_old'
      order by p.policyname
    loop
      select string_agg(case when x = 'public' then 'public' else quote_ident(x) end, ', ')
      into roles_sql from unnest(r.roles) as t(x);
      execute format('create policy %I on realtime.messages as %s for %s to %s%s%s',
                     r.policyname, lower(r.permissive), r.cmd, coalesce(roles_sql, 'public'),
                     case when r.qual is null then '' else ' using (' || r.qual || ')' end,
                     case when r.with_check is null then '' else ' with check (' || r.with_check || ')' end);
    end loop;

    for r in
      select a.grantee, a.privilege_type, a.is_grantable
      from pg_catalog.pg_class c, pg_catalog.aclexplode(c.relacl) a
      where c.oid = 'realtime.messages_old'::regclass and a.grantee <> c.relowner
    loop
      execute format('grant %s on realtime.messages to %s%s', r.privilege_type,
                     case when r.grantee = 0 then 'public' else quote_ident(pg_catalog.pg_get_userbyid(r.grantee)) end,
                     case when r.is_grantable then ' with grant option' else '' end);
    end loop;

    drop table realtime.messages_old;
  end if;
end
$$;

alter table realtime.messages enable row level security;
grant select, insert, update on realtime.messages to anon, authenticated, service_role;
-- What replay reads: a topic's latest private broadcasts.
create index if not exists messages_inserted_at_topic_index on realtime.messages (inserted_at desc, topic)
  where extension = 'broadcast' and private is true;

-- A partition per day (upstream's names), for today and the next three; a day whose rows
-- already sit in the default partition keeps them there. Run by every server at start and
-- then periodically; the same maintenance drops partitions older than 72 hours. Both need a
-- lock on realtime.messages that would queue every insert behind a long transaction: they
-- wait one second at most and try again at the next round.
create or replace function realtime.ensure_message_partitions(days integer default 3) returns void
language plpgsql security definer set search_path = '' set lock_timeout = '1s'
as $$
declare
  day date;
begin
  for day in select d::date from pg_catalog.generate_series(current_date, current_date + days, interval '1 day') d loop
    continue when exists (
      select from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'realtime' and c.relname = 'messages_' || pg_catalog.to_char(day, 'YYYY_MM_DD'));
    begin
      execute pg_catalog.format('create table realtime.%I partition of realtime.messages for values from (%L) to (%L)',
                                'messages_' || pg_catalog.to_char(day, 'YYYY_MM_DD'), day, day + 1);
    exception when check_violation or duplicate_table or unique_violation or lock_not_available then
      null;  -- rows of that day in the default partition, another server made it first, or busy
    end;
  end loop;
end
$$;
revoke all on function realtime.ensure_message_partitions(integer) from public;

create or replace function realtime.drop_old_messages() returns void
language plpgsql security definer set search_path = '' set lock_timeout = '1s'
as $$
declare
  part text;
  horizon date := (pg_catalog.now() - interval '72 hours')::date;
begin
  for part in
    select c.relname from pg_catalog.pg_inherits i
    join pg_catalog.pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'realtime.messages'::regclass and c.relname ~ '^messages_\d{4}_\d{2}_\d{2}$'
  loop
    if pg_catalog.to_date(pg_catalog.substr(part, 10), 'YYYY_MM_DD') < horizon then
      begin
        execute pg_catalog.format('drop table if exists realtime.%I', part);
      exception when lock_not_available then
        null;
      end;
    end if;
  end loop;
  delete from realtime.messages_default where inserted_at < pg_catalog.now() - interval '72 hours';
end
$$;
revoke all on function realtime.drop_old_messages() from public;

select realtime.ensure_message_partitions();

-- 2. The log every process reads: broadcasts and presence diffs as hub.py reads them (`body`),
--    with the process that published them (null: the database).
create table if not exists realtime.bus (
  id bigserial primary key,
  node uuid,
  body text not null,
  created_at timestamptz not null default pg_catalog.clock_timestamp()
);
create index if not exists bus_created_at_idx on realtime.bus (created_at);
revoke all on realtime.bus from anon, authenticated, service_role;

-- Every message goes on the bus through this (a server process's in a transaction of its
-- own, the database's at commit): the lock (0310's: the bus and the change log share one
-- order, so no two transactions take two locks in opposite orders) is held until the commit
-- is visible, so ids follow commit order.
create or replace function realtime.bus_publish(sender uuid, body text) returns void
language plpgsql security definer set search_path = ''
as $$
begin
  perform pg_catalog.pg_advisory_xact_lock(91604343083604);
  insert into realtime.bus (node, body) values (sender, body);
  perform pg_catalog.pg_notify('realtime_bus', '');
end
$$;
revoke all on function realtime.bus_publish(uuid, text) from public;

-- A broadcast row of realtime.messages goes on the bus when its transaction commits, as
-- upstream's replication stream would show it: the meta carries the message id.
create or replace function realtime.publish_message() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  perform realtime.bus_publish(null, pg_catalog.jsonb_build_object(
    'k', 'b', 't', new.topic, 'p', coalesce(new.private, false), 'e', coalesce(new.event, ''),
    'j', new.binary_payload is null, 'm', pg_catalog.jsonb_build_object('id', new.id),
    'd', case when new.binary_payload is null then coalesce(new.payload, 'null'::jsonb)::text
              else pg_catalog.encode(new.binary_payload, 'base64') end)::text);
  return null;
end
$$;
revoke all on function realtime.publish_message() from public;

drop trigger if exists supalite_realtime_publish on realtime.messages;
create constraint trigger supalite_realtime_publish after insert on realtime.messages
  deferrable initially deferred for each row
  when (new.extension = 'broadcast' and not new.skip_broadcast)
  execute function realtime.publish_message();

-- 3. Upstream's functions, as they are (invoker's rights: the insert is checked by the
--    caller's INSERT policies, and a refused one is a warning, never an error in the
--    caller's transaction).
create or replace function realtime.send(payload jsonb, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
declare
  generated_id uuid;
  final_payload jsonb;
begin
  begin
    generated_id := gen_random_uuid();
    if payload ? 'id' then
      final_payload := payload;
    else
      final_payload := jsonb_set(payload, '{id}', to_jsonb(generated_id));
    end if;
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, payload, event, topic, private, extension)
    values (generated_id, final_payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.send_binary(payload bytea, event text, topic text, private boolean default true)
returns void
language plpgsql
as $$
declare
  generated_id uuid;
begin
  begin
    generated_id := gen_random_uuid();
    execute format('SET LOCAL realtime.topic TO %L', topic);
    insert into realtime.messages (id, binary_payload, event, topic, private, extension)
    values (generated_id, payload, event, topic, private, 'broadcast');
  exception
    when others then
      raise warning 'WarnSendingBroadcastMessage: %', sqlerrm;
  end;
end;
$$;

create or replace function realtime.broadcast_changes(topic_name text, event_name text, operation text,
                                                      table_name text, table_schema text, new record,
                                                      old record, level text default 'ROW')
returns void
language plpgsql
as $$
declare
  row_data jsonb := '{}'::jsonb;
begin
  if level = 'STATEMENT' then
    raise exception 'function can only be triggered for each row, not for each statement';
  end if;
  if operation = 'INSERT' or operation = 'UPDATE' or operation = 'DELETE' then
    row_data := jsonb_build_object('old_record', old, 'record', new, 'operation', operation,
                                   'table', table_name, 'schema', table_schema);
    perform realtime.send(row_data, event_name, topic_name);
  else
    raise exception 'Unexpected operation type: %', operation;
  end if;
exception
  when others then
    raise exception 'Failed to process the row: %', sqlerrm;
end;
$$;

grant usage on schema realtime to anon, authenticated, service_role;
grant execute on function realtime.send(jsonb, text, text, boolean), realtime.send_binary(bytea, text, text, boolean),
  realtime.broadcast_changes(text, text, text, text, text, record, record, text), realtime.topic()
  to anon, authenticated, service_role;
