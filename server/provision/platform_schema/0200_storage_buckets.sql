-- storage.buckets, shaped like supabase/storage's table.
create table if not exists storage.buckets (
  id text primary key,
  name text not null unique,
  owner uuid,
  owner_id text,
  public boolean not null default false,
  avif_autodetection boolean default false,
  file_size_limit bigint,
  allowed_mime_types text[],
  type text not null default 'STANDARD',
  created_at timestamptz default now(),
  updated_at timestamptz default now()
);

alter table storage.buckets enable row level security;
grant all on storage.buckets to service_role;
grant select on storage.buckets to anon, authenticated;
