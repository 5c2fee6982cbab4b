-- RPC: volatile functions over GET, unnamed parameters and their overloads, ambiguous
-- overloads, counted and paged results.
create table public.rpc_log (
  id serial primary key,
  note text not null
);
grant select, insert on public.rpc_log to anon, authenticated, service_role;
grant usage, select on sequence public.rpc_log_id_seq to anon, authenticated, service_role;

-- volatile: one writes (refused in GET's read-only transaction), one only computes
create function public.rpc_log_note(note text) returns int language sql volatile as $$
  insert into public.rpc_log (note) values (note) returning id
$$;
create function public.rpc_double(a int) returns int language sql volatile as $$ select a * 2 $$;

-- arguments of several types, bound from the query string or the body
create function public.rpc_describe(n int, label text, tags text[] default '{}', meta json default null)
returns json language sql immutable as $$
  select json_build_object('n', n, 'label', label, 'tags', tags, 'meta', meta)
$$;
create function public.rpc_sum(variadic nums int[]) returns int language sql immutable as $$
  select coalesce(sum(x), 0)::int from unnest(nums) x
$$;
create function public.rpc_padded(code character) returns text language sql immutable as $$ select code::text $$;

-- set-returning: scalars, rows, rows of a table
create function public.rpc_series(n int) returns setof int language sql stable as $$ select generate_series(1, n) $$;
create function public.rpc_items(n int) returns table (id int, label text) language sql stable as $$
  select i, 'item ' || i from generate_series(1, n) i
$$;
create function public.rpc_out_pair(a int, out doubled int, out tripled int) language sql immutable as $$
  select a * 2, a * 3
$$;

-- one unnamed parameter: the raw body is its argument
create function public.rpc_unnamed_json(json) returns json language sql immutable as $$ select $1 $$;
create function public.rpc_unnamed_jsonb(jsonb) returns jsonb language sql immutable as $$ select $1 $$;
create function public.rpc_unnamed_text(text) returns text language sql immutable as $$ select $1 $$;
create function public.rpc_unnamed_xml(xml) returns text language sql immutable as $$ select $1::text $$;
create function public.rpc_unnamed_bytea(bytea) returns text language sql immutable as $$ select encode($1, 'hex') $$;
create function public.rpc_named_json(data json) returns json language sql immutable as $$ select data $$;
-- not callable by /rpc: an unnamed parameter of another type
create function public.rpc_unnamed_int(int) returns int language sql immutable as $$ select $1 $$;

-- overloads around the unnamed parameter
create function public.rpc_ov_unnamed(json) returns text language sql immutable as $$ select 'json: ' || $1::text $$;
create function public.rpc_ov_unnamed(bytea) returns text language sql immutable as $$ select 'bytea: ' || encode($1, 'hex') $$;
create function public.rpc_ov_unnamed(text) returns text language sql immutable as $$ select 'text: ' || $1 $$;
create function public.rpc_ov_unnamed() returns text language sql immutable as $$ select 'none' $$;
create function public.rpc_ov_unnamed(x int, y int) returns text language sql immutable as $$ select 'sum: ' || (x + y) $$;

create function public.rpc_ov_json_jsonb(json) returns text language sql immutable as $$ select 'json' $$;
create function public.rpc_ov_json_jsonb(jsonb) returns text language sql immutable as $$ select 'jsonb' $$;
create function public.rpc_ov_json_jsonb(x int, y int) returns text language sql immutable as $$ select 'xy' $$;

-- `{"": value}`: the text overload (the int one is not callable)
create function public.rpc_pick(text) returns text language sql immutable as $$ select 'text: ' || $1 $$;
create function public.rpc_pick(int) returns text language sql immutable as $$ select 'int' $$;

-- named overloads that both fit `a` alone
create function public.rpc_amb(a int, b text default '') returns text language sql immutable as $$ select 'ab' $$;
create function public.rpc_amb(a int, c int default 0) returns text language sql immutable as $$ select 'ac' $$;

-- STABLE, yet it calls a writer: a POST runs it read-only as PostgREST does, so the write fails
create function public.rpc_stable_logger(note text) returns int language plpgsql stable as $$
begin
  return public.rpc_log_note(note);
end $$;
