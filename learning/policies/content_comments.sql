-- content_comments: readable by whoever can read the lesson; written by signed-in users
-- who can read it, as themselves; deleted by their author or an admin. No edits.
alter table public.content_comments enable row level security;

revoke all on public.content_comments from anon, authenticated;
grant select on public.content_comments to anon, authenticated;
grant insert, delete on public.content_comments to authenticated;
grant all on public.content_comments to service_role;

drop policy if exists content_comments_select on public.content_comments;
create policy content_comments_select on public.content_comments for select to anon, authenticated
  using (app_private.can_read_content(auth.uid(), content_id));

drop policy if exists content_comments_insert on public.content_comments;
create policy content_comments_insert on public.content_comments for insert to authenticated
  with check (user_id = auth.uid() and app_private.can_read_content(auth.uid(), content_id));

drop policy if exists content_comments_delete on public.content_comments;
create policy content_comments_delete on public.content_comments for delete to authenticated
  using (user_id = auth.uid() or app_private.is_admin());
