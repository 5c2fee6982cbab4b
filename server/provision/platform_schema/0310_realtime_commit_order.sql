-- Realtime: changes logged in commit order, each checked against the subscriber's policies
-- on the row as it was logged.
--
-- 0300 logged a change when its row was written, ordered the log by transaction id (start
-- order) behind the oldest running transaction, and checked visibility by re-reading the
-- current row: one open transaction held every event back, and a change whose row had
-- changed again by then was dropped (insert + update + delete gave the DELETE only).
--
-- * The capture trigger is deferred: a transaction's changes are logged at its commit, in
--   the order they were made, under a lock that is held until the commit is visible. Log
--   ids therefore follow commit order, and a reader that sees id N also sees every
--   committed id below it: reading "id > last seen" never skips a change that commits
--   late, and an open transaction delays no one. The cost: commits of transactions that
--   changed a subscribed table run one at a time (a transaction that makes the trigger
--   fire early with SET CONSTRAINTS ... IMMEDIATE holds that turn until it ends).
-- * Visibility is the subscriber's SELECT policies evaluated on the logged row (the new
--   row; the old one for a DELETE), combined as PostgreSQL combines them, as the
--   subscriber's role and claims: what it could see of that row version when it was written.

-- The old row in full (record and old_record stay what Realtime sends: the new row, and the
-- replica identity's columns); it decides who sees a DELETE.
alter table realtime.changes add column if not exists old_row jsonb;
alter table realtime.changes drop column if exists xid;

create or replace function realtime.capture_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  identity "char";
  old_row jsonb;
  old_image jsonb;
begin
  if not exists (select 1 from realtime.subscription s where s.entity = tg_relid) then
    return null;
  end if;
  -- Released only once this commit is visible: the next committer waits here, so log ids
  -- are taken in commit order.
  perform pg_catalog.pg_advisory_xact_lock(91604343083604);
  if tg_op <> 'INSERT' then
    old_row := pg_catalog.to_jsonb(old);
    select c.relreplident into identity from pg_catalog.pg_class c where c.oid = tg_relid;
    if identity = 'f' then
      old_image := old_row;
    elsif identity in ('d', 'i') then
      -- What logical decoding carries: the primary key, or the identity index's columns.
      select pg_catalog.jsonb_object_agg(a.attname, old_row -> a.attname::text) into old_image
      from pg_catalog.pg_index i
      join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = tg_relid
        and ((identity = 'd' and i.indisprimary) or (identity = 'i' and i.indisreplident));
    end if;
  end if;
  insert into realtime.changes (entity, schema_name, table_name, action, record, old_record, old_row)
  values (tg_relid, tg_table_schema, tg_table_name, tg_op,
          case when tg_op = 'DELETE' then null else pg_catalog.to_jsonb(new) end, old_image, old_row);
  perform pg_catalog.pg_notify('realtime_changes', '');
  return null;
end
$$;

-- Install the deferred capture trigger on every table of the publication (replacing 0300's
-- immediate one), remove it from tables that left it.
create or replace function realtime.sync_capture_triggers() returns void
language plpgsql security definer set search_path = ''
as $$
declare
  rel regclass;
begin
  for rel in
    select pg_catalog.format('%I.%I', pt.schemaname, pt.tablename)::regclass
    from pg_catalog.pg_publication_tables pt
    where pt.pubname = 'supabase_realtime'
      and not exists (
        select 1 from pg_catalog.pg_trigger t
        where t.tgrelid = pg_catalog.format('%I.%I', pt.schemaname, pt.tablename)::regclass
          and t.tgname = 'supalite_realtime_capture' and t.tginitdeferred)
  loop
    execute pg_catalog.format('drop trigger if exists supalite_realtime_capture on %s', rel);
    execute pg_catalog.format(
      'create constraint trigger supalite_realtime_capture after insert or update or delete on %s'
      ' deferrable initially deferred for each row execute function realtime.capture_change()', rel);
  end loop;
  for rel in
    select t.tgrelid::regclass from pg_catalog.pg_trigger t
    where t.tgname = 'supalite_realtime_capture'
      and t.tgrelid not in (
        select pg_catalog.format('%I.%I', pt.schemaname, pt.tablename)::regclass
        from pg_catalog.pg_publication_tables pt where pt.pubname = 'supabase_realtime')
  loop
    execute pg_catalog.format('drop trigger supalite_realtime_capture on %s', rel);
  end loop;
end
$$;

select realtime.sync_capture_triggers();

-- The SELECT policies `role_name` is subject to on `ent`, as one statement telling whether a
-- logged row ($1, jsonb) passes them; null when the role reads every row (no RLS, owner
-- without FORCE, BYPASSRLS). Combined as PostgreSQL does: any permissive policy and every
-- restrictive one; no permissive policy, no row. The logged row is aliased with the table's
-- name, which is how policy expressions (deparsed fully qualified) refer to it.
create or replace function realtime.visibility_sql(ent regclass, role_name text) returns text
language plpgsql stable set search_path = ''
as $$
declare
  rel record;
  role_oid oid;
  bypass boolean;
  permissive text;
  restrictive text;
begin
  select c.relname, c.relrowsecurity, c.relforcerowsecurity, c.relowner into rel
  from pg_catalog.pg_class c where c.oid = ent;
  select r.oid, r.rolsuper or r.rolbypassrls into role_oid, bypass
  from pg_catalog.pg_roles r where r.rolname = role_name;
  if not rel.relrowsecurity or bypass
     or (not rel.relforcerowsecurity and pg_catalog.pg_has_role(role_oid, rel.relowner, 'USAGE')) then
    return null;
  end if;
  select pg_catalog.string_agg(pg_catalog.format('(%s)', pg_catalog.pg_get_expr(p.polqual, p.polrelid)), ' or ')
           filter (where p.polpermissive),
         pg_catalog.string_agg(pg_catalog.format('(%s)', pg_catalog.pg_get_expr(p.polqual, p.polrelid)), ' and ')
           filter (where not p.polpermissive)
  into permissive, restrictive
  from pg_catalog.pg_policy p
  where p.polrelid = ent and p.polcmd in ('r', '*') and p.polqual is not null
    and (0::oid = any(p.polroles)
         or exists (select 1 from pg_catalog.unnest(p.polroles) r where pg_catalog.pg_has_role(role_oid, r, 'USAGE')));
  if permissive is null then
    return 'select false';
  end if;
  return pg_catalog.format(
    'select exists (select from pg_catalog.jsonb_populate_record(null::%s, $1) as %I where (%s) and (%s))',
    ent, rel.relname, permissive, coalesce(restrictive, 'true'));
end
$$;
revoke all on function realtime.visibility_sql(regclass, text) from public;

-- For a batch of logged changes, which subscriptions may see each one, per role: the columns
-- the role may select, the error Realtime reports instead of the change (no primary key, or
-- one the role may not select), and the subscriptions whose policies pass on the logged row.
-- A DELETE goes only to those who could see the deleted row.
-- batch: [{"k": n, "change": realtime.changes id, "ids": [realtime.subscription ids]}]
drop function if exists realtime.check_changes(jsonb);
create function realtime.check_changes(batch jsonb)
returns table (k int, role_name text, ids bigint[], cols jsonb, err text, rls boolean, pk text[])
language plpgsql
as $$
declare
  item jsonb;
  wanted bigint[];
  ent regclass;
  schema_name text;
  act text;
  rec jsonb;
  check_sql text;
  sub_ids bigint[];
  sub_claims jsonb[];
  visible boolean;
  caller_path text := pg_catalog.current_setting('search_path');
begin
  for item in select value from pg_catalog.jsonb_array_elements(batch) loop
    k := (item ->> 'k')::int;
    wanted := array(select value::bigint from pg_catalog.jsonb_array_elements_text(item -> 'ids'));
    select c.entity::regclass, c.schema_name, c.action,
           case when c.action = 'DELETE' then coalesce(c.old_row, c.old_record) else c.record end
    into ent, schema_name, act, rec
    from realtime.changes c
    where c.id = (item ->> 'change')::bigint
      and exists (select 1 from pg_catalog.pg_class t where t.oid = c.entity);
    continue when ent is null;
    select c.relrowsecurity into rls from pg_catalog.pg_class c where c.oid = ent;
    select pg_catalog.array_agg(a.attname::text order by a.attnum) into pk
    from pg_catalog.pg_index i
    join pg_catalog.pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = ent and i.indisprimary;
    for role_name in
      select distinct s.claims_role from realtime.subscription s
      where s.id = any(wanted) and exists (select 1 from pg_catalog.pg_roles r where r.rolname = s.claims_role)
      order by 1
    loop
      select coalesce(pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object('name', a.attname, 'type', t.typname)
                                           order by a.attnum), '[]')
      into cols
      from pg_catalog.pg_attribute a join pg_catalog.pg_type t on t.oid = a.atttypid
      where a.attrelid = ent and a.attnum > 0 and not a.attisdropped
        and pg_catalog.has_column_privilege(role_name, ent, a.attname, 'SELECT');
      err := case
        when pk is null then 'Error 400: Bad Request, no primary key'
        when not coalesce((select bool_and(pg_catalog.has_column_privilege(role_name, ent, n, 'SELECT'))
                           from pg_catalog.unnest(pk) n), false) then 'Error 401: Unauthorized'
      end;
      -- Collected first: no cursor stays open while the role is switched.
      select pg_catalog.array_agg(s.id order by s.id), pg_catalog.array_agg(s.claims order by s.id)
      into sub_ids, sub_claims
      from realtime.subscription s where s.claims_role = role_name and s.id = any(wanted);
      continue when sub_ids is null;
      if err is not null then
        continue when act = 'DELETE';  -- no one could have seen that row: nothing to report
        ids := sub_ids;
        return next;
        continue;
      end if;
      check_sql := realtime.visibility_sql(ent, role_name);
      if check_sql is null then
        ids := sub_ids;
      else
        ids := '{}';
        for i in 1 .. pg_catalog.array_length(sub_ids, 1) loop
          perform pg_catalog.set_config('search_path', pg_catalog.quote_ident(schema_name), true),
                  pg_catalog.set_config('role', role_name, true),
                  pg_catalog.set_config('request.jwt.claims', sub_claims[i]::text, true),
                  pg_catalog.set_config('request.jwt.claim.sub', coalesce(sub_claims[i] ->> 'sub', ''), true),
                  pg_catalog.set_config('request.jwt.claim.role', coalesce(sub_claims[i] ->> 'role', ''), true);
          begin
            execute check_sql into visible using rec;
          exception when others then
            -- A row the policies cannot be evaluated on (e.g. a value that no longer fits
            -- the column's type) is not shown.
            visible := false;
          end;
          perform pg_catalog.set_config('role', 'none', true),
                  pg_catalog.set_config('search_path', caller_path, true);
          if visible then
            ids := ids || sub_ids[i];
          end if;
        end loop;
      end if;
      if ids <> '{}' then
        return next;
      end if;
    end loop;
  end loop;
  perform pg_catalog.set_config('role', 'none', true),
          pg_catalog.set_config('search_path', caller_path, true),
          pg_catalog.set_config('request.jwt.claims', '', true),
          pg_catalog.set_config('request.jwt.claim.sub', '', true),
          pg_catalog.set_config('request.jwt.claim.role', '', true);
end
$$;
revoke all on function realtime.check_changes(jsonb) from public;
