-- Realtime: postgres_changes filters and column selection as current Realtime has them
-- (its tenant migrations ReAddPostgrestFilterOps, AddSelectColumnsToSubscriptions,
-- ValidateFilterOperatorAgainstColumnType, EmptySelectColumnsReturnPrimaryKeys).
--
-- * Operators eq neq lt lte gt gte in like ilike is match imatch isdistinct, each negatable
--   (`not.`), every filter of a subscription ANDed. They are evaluated by PostgreSQL on the
--   logged row's values read as the column's type (realtime.check_equality_op), so `ilike`
--   folds case, `match` is `~`, `isdistinct` is null-safe, `in` reads a PostgreSQL array
--   literal, exactly as upstream's apply_rls does.
-- * A subscription is validated when it is made (trigger tr_check_filters, upstream's
--   subscription_check_filters): a column the subscriber's role may not select, a value that
--   is not of the column's type, an operator the type has no use for, a bad regular
--   expression are refused there, with upstream's messages.
-- * Filters narrow what the RLS check lets through, never widen it: they run before it, on
--   columns the role may select (checked again at each change: a role changed by a new
--   access token gets nothing from a filter on a column it may not read), and a filter that
--   cannot be evaluated (a value that no longer fits, a missing column) hides the change.
--   Upstream fails closed the same way (a filter on a column the change lacks, as a DELETE's
--   replica identity lacks non-key columns, or a null compared with `eq`, hides the change).

-- The columns a subscription asked for (`select`), besides the primary key; null: all.
alter table realtime.subscription add column if not exists selected_columns text[];

-- A value read as a type, as JSON: refuses what the type does not accept.
create or replace function realtime.cast(val text, type_ regtype) returns jsonb
language plpgsql immutable
set search_path = pg_catalog, extensions
as $$
declare
  res jsonb;
begin
  execute pg_catalog.format('select pg_catalog.to_jsonb(%L::%s)', val, type_) into res;
  return res;
end
$$;

-- Upstream's 5-argument check_equality_op: `val_1 op val_2`, both read as `type_` (an array
-- of it for `in`), negated when asked. `is` takes a keyword, `isdistinct` is null-safe.
create or replace function realtime.check_equality_op(op text, type_ regtype, val_1 text, val_2 text,
                                                      negate boolean)
returns boolean
language plpgsql stable
set search_path = pg_catalog, extensions
as $$
declare
  op_symbol text;
  res boolean;
begin
  if op = 'isdistinct' then
    execute pg_catalog.format('select %L::%s %s %L::%s', val_1, type_,
                              case when negate then 'is not distinct from' else 'is distinct from' end,
                              val_2, type_)
    into res;
    return res;
  end if;
  if op = 'is' then
    if val_2 not in ('null', 'true', 'false', 'unknown') then
      raise exception 'invalid value for is filter: must be null, true, false, or unknown';
    end if;
    execute pg_catalog.format('select %L::%s %s %s', val_1, type_, case when negate then 'is not' else 'is' end,
                              pg_catalog.upper(val_2))
    into res;
    return res;
  end if;
  op_symbol := case op
    when 'eq' then '=' when 'neq' then '!=' when 'lt' then '<' when 'lte' then '<='
    when 'gt' then '>' when 'gte' then '>=' when 'in' then '= any'
    when 'like' then 'like' when 'ilike' then 'ilike' when 'match' then '~' when 'imatch' then '~*'
  end;
  if op_symbol is null then
    raise exception 'unsupported equality operator: %', op;
  end if;
  execute pg_catalog.format('select %L::%s %s (%L::%s)', val_1, type_, op_symbol, val_2,
                            case when op = 'in' then type_::text || '[]' else type_::text end)
  into res;
  return case when negate then not res else res end;
end
$$;

-- Refuse a subscription whose filters or selected columns upstream refuses, with its
-- messages. filters: [{"column_name", "op", "value", "negate"}] (`in`'s value an array literal).
create or replace function realtime.subscription_check_filters() returns trigger
language plpgsql
set search_path = pg_catalog, extensions
as $$
declare
  col_names text[];
  f jsonb;
  col text;
  op text;
  val text;
  negate boolean;
  col_type regtype;
  in_val jsonb;
  selected_col text;
begin
  select coalesce(pg_catalog.array_agg(a.attname::text order by a.attnum), '{}') into col_names
  from pg_catalog.pg_attribute a
  where a.attrelid = new.entity and a.attnum > 0 and not a.attisdropped
    and pg_catalog.has_column_privilege(new.claims_role, a.attrelid, a.attnum, 'SELECT');

  for f in select value from pg_catalog.jsonb_array_elements(new.filters) loop
    col := f ->> 'column_name';
    op := f ->> 'op';
    val := f ->> 'value';
    negate := coalesce((f ->> 'negate')::boolean, false);
    if not col = any(col_names) then
      raise exception 'invalid column for filter %', col;
    end if;
    select a.atttypid::regtype into col_type
    from pg_catalog.pg_attribute a where a.attrelid = new.entity and a.attname = col;
    if col_type is null then
      raise exception 'failed to lookup type for column %', col;
    end if;

    if op = 'in' then
      in_val := realtime.cast(val, (col_type::text || '[]')::regtype);
      if coalesce(pg_catalog.jsonb_array_length(in_val), 0) > 100 then
        raise exception 'too many values for `in` filter. Maximum 100';
      end if;
    elsif op = 'is' then
      if val not in ('null', 'true', 'false', 'unknown') then
        raise exception 'invalid value for is filter: must be null, true, false, or unknown';
      end if;
      if val <> 'null' and col_type <> 'boolean'::regtype then
        raise exception 'is % filter requires a boolean column, got %', val, col_type::text;
      end if;
    else
      if op in ('match', 'imatch') then
        begin
          perform '' ~ val;
        exception when others then
          raise exception 'invalid regular expression for % filter: %', op, sqlerrm;
        end;
      elsif op not in ('like', 'ilike') then
        perform realtime.cast(val, col_type);
      end if;
      -- The operator must apply to the column's type: the very call a change will make.
      begin
        perform realtime.check_equality_op(op, col_type, val, val, negate);
      exception when others then
        raise exception 'operator % is not supported on column % of type %: %', op, col, col_type::text, sqlerrm;
      end;
    end if;
  end loop;

  if new.selected_columns is not null then
    foreach selected_col in array new.selected_columns loop
      if not selected_col = any(col_names) then
        raise exception 'invalid column for select %', selected_col;
      end if;
    end loop;
  end if;
  return new;
end
$$;

drop trigger if exists tr_check_filters on realtime.subscription;
create trigger tr_check_filters before insert on realtime.subscription
  for each row execute function realtime.subscription_check_filters();

-- Whether a logged row passes a subscription's filters, for `role_name`: every filter's column
-- present in the row and selectable by the role, and its test true. A test that raises (a
-- value that no longer fits the column's type, say) is false.
create or replace function realtime.filters_pass(ent regclass, role_name text, filters jsonb, rec jsonb)
returns boolean
language plpgsql stable
set search_path = pg_catalog, extensions
as $$
declare
  f jsonb;
  col text;
  col_type regtype;
  passed boolean;
begin
  if filters is null or pg_catalog.jsonb_array_length(filters) = 0 then
    return true;
  end if;
  if rec is null then
    return false;
  end if;
  for f in select value from pg_catalog.jsonb_array_elements(filters) loop
    col := f ->> 'column_name';
    if not rec ? col then
      return false;
    end if;
    select a.atttypid::regtype into col_type
    from pg_catalog.pg_attribute a
    where a.attrelid = ent and a.attname = col and a.attnum > 0 and not a.attisdropped
      and pg_catalog.has_column_privilege(role_name, ent, a.attnum, 'SELECT');
    if col_type is null then
      return false;
    end if;
    begin
      passed := realtime.check_equality_op(f ->> 'op', col_type, rec -> col #>> '{}', f ->> 'value',
                                           coalesce((f ->> 'negate')::boolean, false));
    exception when others then
      passed := false;
    end;
    if passed is not true then
      return false;
    end if;
  end loop;
  return true;
end
$$;
revoke all on function realtime.filters_pass(regclass, text, jsonb, jsonb) from public;
revoke all on function realtime.check_equality_op(text, regtype, text, text, boolean) from public;
revoke all on function realtime.cast(text, regtype) from public;
grant execute on function realtime.filters_pass(regclass, text, jsonb, jsonb) to authenticator;
grant execute on function realtime.check_equality_op(text, regtype, text, text, boolean) to authenticator;

-- As 0320, with each subscription's filters applied before its RLS check: to the new row, or
-- to the replica identity's columns for a DELETE (what upstream's WAL record carries). Each
-- distinct filter set is evaluated once per change and role. An error row (no primary key,
-- one the role may not select) still goes to every subscription of the role, as upstream's.
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
  filter_rec jsonb;
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
           case when c.action = 'DELETE' then coalesce(c.old_row, c.old_record) else c.record end,
           case when c.action = 'DELETE' then c.old_record else c.record end
    into ent, schema_name, act, rec, filter_rec
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
      if err is not null then
        continue when act = 'DELETE';  -- no one could have seen that row: nothing to report
        select pg_catalog.array_agg(s.id order by s.id) into ids
        from realtime.subscription s where s.claims_role = role_name and s.id = any(wanted);
        if ids is not null then
          return next;
        end if;
        continue;
      end if;
      -- Collected first: no cursor stays open while the role is switched.
      -- (materialized: the filter test is not pushed below the distinct, once per row)
      with distinct_filters as materialized (
        select distinct s.filters from realtime.subscription s
        where s.claims_role = role_name and s.id = any(wanted)
      ), passing as materialized (
        select f.filters from distinct_filters f
        where realtime.filters_pass(ent, role_name, f.filters, filter_rec)
      )
      select pg_catalog.array_agg(s.id order by s.id), pg_catalog.array_agg(s.claims order by s.id)
      into sub_ids, sub_claims
      from realtime.subscription s join passing p on p.filters = s.filters
      where s.claims_role = role_name and s.id = any(wanted);
      continue when sub_ids is null;
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
