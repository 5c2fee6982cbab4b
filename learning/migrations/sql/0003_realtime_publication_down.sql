do $$
declare
  name text;
begin
  foreach name in array array['private_messages', 'content_comments', 'comment_replies'] loop
    if exists (select from pg_catalog.pg_publication_tables
               where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = name) then
      execute format('alter publication supabase_realtime drop table public.%I', name);
    end if;
  end loop;
end
$$;
