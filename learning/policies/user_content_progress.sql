-- user_content_progress: single-lesson grants (and completion marks), written by admins;
-- a learner reads their own. Upsert works: the primary key is (user_id, content_id).
alter table public.user_content_progress enable row level security;

revoke all on public.user_content_progress from anon, authenticated;
grant select, insert, update, delete on public.user_content_progress to authenticated;
grant all on public.user_content_progress to service_role;

drop policy if exists user_content_progress_select on public.user_content_progress;
create policy user_content_progress_select on public.user_content_progress for select to authenticated
  using (user_id = auth.uid() or app_private.is_admin());

drop policy if exists user_content_progress_admin_insert on public.user_content_progress;
create policy user_content_progress_admin_insert on public.user_content_progress for insert to authenticated
  with check (app_private.is_admin());

drop policy if exists user_content_progress_admin_update on public.user_content_progress;
create policy user_content_progress_admin_update on public.user_content_progress for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists user_content_progress_admin_delete on public.user_content_progress;
create policy user_content_progress_admin_delete on public.user_content_progress for delete to authenticated
  using (app_private.is_admin());
