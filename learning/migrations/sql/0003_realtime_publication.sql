-- The web app subscribes to private_messages (unread dot, conversation), content_comments
-- and comment_replies (the comments panel). Realtime delivers a change only to subscribers
-- whose RLS policies let them read the row, so publishing a table exposes nothing more.
-- Idempotent: a table already in the publication is left alone; the publication is
-- created if the platform has not made it yet.
do $$
declare
  name text;
begin
  if not exists (select from pg_catalog.pg_publication where pubname = 'supabase_realtime') then
    create publication supabase_realtime;
  end if;
  foreach name in array array['private_messages', 'content_comments', 'comment_replies'] loop
    if not exists (select from pg_catalog.pg_publication_tables
                   where pubname = 'supabase_realtime' and schemaname = 'public' and tablename = name) then
      execute format('alter publication supabase_realtime add table public.%I', name);
    end if;
  end loop;
end
$$;
