-- course_access: grants, written by admins (granted_by = the admin); a user reads their own.
-- The primary key (user_id, ...) makes a duplicate grant fail with 23505 (HTTP 409).
alter table public.course_access enable row level security;

revoke all on public.course_access from anon, authenticated;
grant select, insert, update, delete on public.course_access to authenticated;
grant all on public.course_access to service_role;

drop policy if exists course_access_select on public.course_access;
create policy course_access_select on public.course_access for select to authenticated
  using (user_id = auth.uid() or app_private.is_admin());

drop policy if exists course_access_admin_insert on public.course_access;
create policy course_access_admin_insert on public.course_access for insert to authenticated
  with check (app_private.is_admin() and granted_by = auth.uid());

drop policy if exists course_access_admin_update on public.course_access;
create policy course_access_admin_update on public.course_access for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin() and granted_by = auth.uid());

drop policy if exists course_access_admin_delete on public.course_access;
create policy course_access_admin_delete on public.course_access for delete to authenticated
  using (app_private.is_admin());
