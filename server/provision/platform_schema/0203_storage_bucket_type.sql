-- A bucket's `type` as storage-api types it: the enum storage.buckettype (STANDARD; ANALYTICS
-- and VECTOR name the Iceberg and vector stores, which this server does not keep), so a
-- project's SQL inserting `'STANDARD'::storage.buckettype` runs here as on Supabase, and
-- no other value can be stored.
do $$
begin
  if not exists (select 1 from pg_type t join pg_namespace n on n.oid = t.typnamespace
                 where n.nspname = 'storage' and t.typname = 'buckettype') then
    create type storage.buckettype as enum ('STANDARD', 'ANALYTICS', 'VECTOR');
  end if;
end
$$;

alter table storage.buckets alter column type drop default;
alter table storage.buckets alter column type type storage.buckettype
  using (case when type in ('STANDARD', 'ANALYTICS', 'VECTOR') then type else 'STANDARD' end)::storage.buckettype;
alter table storage.buckets alter column type set default 'STANDARD';

grant usage on type storage.buckettype to anon, authenticated, service_role;
