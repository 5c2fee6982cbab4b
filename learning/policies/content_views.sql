-- content_views: a learner records their own views of lessons they can read, reads their
-- own; admins read and manage all. A repeated view fails with 23505 (ignored by the UI).
alter table public.content_views enable row level security;

revoke all on public.content_views from anon, authenticated;
grant select, insert, delete on public.content_views to authenticated;
grant all on public.content_views to service_role;

drop policy if exists content_views_select on public.content_views;
create policy content_views_select on public.content_views for select to authenticated
  using (user_id = auth.uid() or app_private.is_admin());

drop policy if exists content_views_insert on public.content_views;
create policy content_views_insert on public.content_views for insert to authenticated
  with check (user_id = auth.uid() and app_private.can_read_content(auth.uid(), content_id));

drop policy if exists content_views_admin_delete on public.content_views;
create policy content_views_admin_delete on public.content_views for delete to authenticated
  using (app_private.is_admin());
