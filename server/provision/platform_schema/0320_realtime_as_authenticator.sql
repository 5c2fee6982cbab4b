-- Realtime's policy checks as the authenticator, like REST and storage (server/realtime/auth.py,
-- changes.py): private-channel checks and postgres_changes visibility run on the
-- authenticator's connections with the caller's role and claims, no longer on the owner's.
--
-- Why not the owner: it is a superuser here. Switching role from a superuser session accepts
-- any role a token names (`postgres` would read every row), unlike REST where the
-- authenticator can only become anon, authenticated or service_role; and any function a
-- policy calls runs in a session that RESET ROLE turns back into a superuser. From the
-- authenticator's session the same token is refused and RESET ROLE gives back the
-- authenticator, as in a REST request.

grant usage on schema realtime to authenticator;

-- Realtime inserts its probe messages (one broadcast, one presence) with its own
-- connection before switching to the caller's role and reading them back under RLS. The
-- authenticator may not write realtime.messages itself: this function does, for it only.
-- The caller (read_policies) always rolls its transaction back, so probes never persist.
create or replace function realtime.probe_messages(topic text)
returns table (id uuid, extension text)
language sql volatile security definer set search_path = ''
as $$
  insert into realtime.messages (topic, extension)
  values (probe_messages.topic, 'broadcast'), (probe_messages.topic, 'presence')
  returning messages.id, messages.extension
$$;
revoke all on function realtime.probe_messages(text) from public;
grant execute on function realtime.probe_messages(text) to authenticator;

-- postgres_changes: the authenticator reads the change log and the subscriptions (its
-- own privileges: anon, authenticated and service_role are not granted them, and the
-- subscriber roles it switches to during the check do not inherit them).
grant select on realtime.changes, realtime.subscription to authenticator;
grant execute on function realtime.visibility_sql(regclass, text) to authenticator;

-- As 0310, but only for subscriber roles this session may become: others (a token naming a
-- role the authenticator is not a member of) get nothing, where switching to them would
-- fail the whole batch.
create or replace function realtime.check_changes(batch jsonb)
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
      where s.id = any(wanted)
        and exists (select 1 from pg_catalog.pg_roles r where r.rolname = s.claims_role
                    and pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER'))
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
grant execute on function realtime.check_changes(jsonb) to authenticator;
