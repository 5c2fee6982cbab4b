-- /rest/v1 reloads its schema cache on `NOTIFY pgrst, 'reload schema'`, as PostgREST does.
-- These event triggers send it after every DDL command, so a migration is visible at once.
-- Event triggers need a superuser: without one they are skipped (NOTIFY by hand still works).
create or replace function extensions.pgrst_ddl_watch() returns event_trigger
language plpgsql
as $$
begin
  perform pg_notify('pgrst', 'reload schema');
end
$$;

do $$
begin
  if exists (select from pg_roles where rolname = current_user and rolsuper) then
    drop event trigger if exists pgrst_ddl_watch;
    create event trigger pgrst_ddl_watch on ddl_command_end execute function extensions.pgrst_ddl_watch();
    drop event trigger if exists pgrst_drop_watch;
    create event trigger pgrst_drop_watch on sql_drop execute function extensions.pgrst_ddl_watch();
  end if;
end
$$;
