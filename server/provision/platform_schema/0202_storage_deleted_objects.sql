-- Stored bytes follow their rows. Whatever deletes or re-keys a storage.objects row (the
-- storage service, an app trigger, psql), the bytes of the old key are queued here in the
-- same transaction, and every server process's reaper (server/storage/reaper.py) removes
-- them from the backend once the change has committed. A rolled-back change queues nothing.
-- Out of reach of the API roles: no grant, and RLS on with no policy.
create table if not exists storage.deleted_objects (
  id bigint generated always as identity primary key,
  bucket_id text not null,
  name text not null,
  version text,
  attempts int not null default 0,
  queued_at timestamptz not null default now()
);

alter table storage.deleted_objects enable row level security;
revoke all on storage.deleted_objects from public, anon, authenticated, service_role;

-- Statement-level with transition tables: one insert and one notification per statement,
-- however many rows an `empty bucket` or a cascading app delete removes.
create or replace function storage.queue_deleted_objects() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if tg_op = 'DELETE' then
    insert into storage.deleted_objects (bucket_id, name, version)
      select o.bucket_id, o.name, o.version from old_rows o
      where o.bucket_id is not null and o.name is not null;
  else
    -- The key is (bucket, name, version): a row re-keyed through SQL leaves its old bytes behind.
    insert into storage.deleted_objects (bucket_id, name, version)
      select o.bucket_id, o.name, o.version
      from old_rows o join new_rows n on n.id = o.id
      where o.bucket_id is not null and o.name is not null
        and (o.bucket_id, o.name, o.version) is distinct from (n.bucket_id, n.name, n.version);
  end if;
  if found then
    perform pg_notify('storage_deleted_objects', '');
  end if;
  return null;
end
$$;

revoke all on function storage.queue_deleted_objects() from public;

drop trigger if exists objects_queue_deleted on storage.objects;
create trigger objects_queue_deleted after delete on storage.objects
  referencing old table as old_rows
  for each statement execute function storage.queue_deleted_objects();

drop trigger if exists objects_queue_rekeyed on storage.objects;
create trigger objects_queue_rekeyed after update on storage.objects
  referencing old table as old_rows new table as new_rows
  for each statement execute function storage.queue_deleted_objects();
