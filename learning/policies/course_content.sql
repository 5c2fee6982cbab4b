-- course_content (lessons): readable once unlocked for the caller (app_private.can_read_lesson,
-- migration 0008): admins; course access (public courses: visitors too) as the course's active
-- unlock schedule opens the lessons, every lesson without a schedule;
-- or when that single lesson was granted (user_content_progress). Admins write.
alter table public.course_content enable row level security;

revoke all on public.course_content from anon, authenticated;
grant select on public.course_content to anon, authenticated;
grant insert, update, delete on public.course_content to authenticated;
grant all on public.course_content to service_role;

drop policy if exists course_content_select on public.course_content;
create policy course_content_select on public.course_content for select to anon, authenticated
  using (app_private.can_read_lesson(auth.uid(), id, course_id));

drop policy if exists course_content_admin_insert on public.course_content;
create policy course_content_admin_insert on public.course_content for insert to authenticated
  with check (app_private.is_admin());

drop policy if exists course_content_admin_update on public.course_content;
create policy course_content_admin_update on public.course_content for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists course_content_admin_delete on public.course_content;
create policy course_content_admin_delete on public.course_content for delete to authenticated
  using (app_private.is_admin());
