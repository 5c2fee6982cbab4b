-- storage.objects and the helpers policies use, shaped like supabase/storage's schema.
-- Every object access runs as the caller's role: RLS on storage.objects decides.
create table if not exists storage.objects (
  id uuid primary key default gen_random_uuid(),
  bucket_id text references storage.buckets (id),
  name text,
  owner uuid,
  owner_id text,
  created_at timestamptz default now(),
  updated_at timestamptz default now(),
  last_accessed_at timestamptz default now(),
  metadata jsonb,
  path_tokens text[] generated always as (string_to_array(name, '/')) stored,
  version text,
  user_metadata jsonb,
  constraint objects_bucket_name_key unique (bucket_id, name)
);

create index if not exists objects_name_prefix_idx on storage.objects (bucket_id, name text_pattern_ops);

alter table storage.objects enable row level security;

-- Privileges as Supabase grants them: the table is reachable, RLS decides which rows.
grant all on storage.objects to anon, authenticated, service_role;
grant all on storage.buckets to anon, authenticated, service_role;

create or replace function storage.foldername(name text) returns text[]
language plpgsql immutable
as $$
declare _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[1 : array_length(_parts, 1) - 1];
end
$$;

create or replace function storage.filename(name text) returns text
language plpgsql immutable
as $$
declare _parts text[];
begin
  select string_to_array(name, '/') into _parts;
  return _parts[array_length(_parts, 1)];
end
$$;

create or replace function storage.extension(name text) returns text
language plpgsql immutable
as $$
declare _parts text[]; _filename text;
begin
  select string_to_array(name, '/') into _parts;
  select _parts[array_length(_parts, 1)] into _filename;
  return reverse(split_part(reverse(_filename), '.', 1));
end
$$;

-- Lists one level under `prefix` (folders first, then files), as the caller sees it.
-- SECURITY INVOKER: RLS on storage.objects filters both folders and files.
create or replace function storage.search(
  prefix text, bucketname text, limits int default 100, levels int default 1, offsets int default 0,
  search text default '', sortcolumn text default 'name', sortorder text default 'asc'
) returns table (name text, id uuid, updated_at timestamptz, created_at timestamptz,
                 last_accessed_at timestamptz, metadata jsonb)
language plpgsql stable
as $$
declare
  v_order text;
  v_column text;
begin
  v_order := case when lower(sortorder) = 'desc' then 'desc' else 'asc' end;
  v_column := case lower(sortcolumn)
    when 'updated_at' then 'updated_at' when 'created_at' then 'created_at'
    when 'last_accessed_at' then 'last_accessed_at' else 'name' end;
  return query execute
    'with matching as (
       select o.* from storage.objects o
       where o.bucket_id = $4
         and o.name like $2 || ''%''
         and ($3 = '''' or o.name ilike $2 || $3 || ''%'')
     ),
     folders as (
       select path_tokens[$1] as folder from matching
       where array_length(path_tokens, 1) > $1
       group by folder
     )
     select name, id, updated_at, created_at, last_accessed_at, metadata from (
       (select folder as name, null::uuid as id, null::timestamptz as updated_at,
               null::timestamptz as created_at, null::timestamptz as last_accessed_at,
               null::jsonb as metadata, 0 as kind
          from folders)
       union all
       (select path_tokens[$1], id, updated_at, created_at, last_accessed_at, metadata, 1
          from matching where array_length(path_tokens, 1) = $1)
     ) entries
     order by kind, ' || quote_ident(v_column) || ' ' || v_order || ' nulls last, name ' || v_order || '
     limit $5 offset $6'
  using levels, replace(replace(replace(prefix, '\', '\\'), '%', '\%'), '_', '\_'),
        replace(replace(replace(coalesce(search, ''), '\', '\\'), '%', '\%'), '_', '\_'),
        bucketname, limits, offsets;
end
$$;

