-- course_unlock_schedules: read by whoever sees the course (the learner page checks for an
-- active schedule); written by admins. One schedule per course (unique course_id).
alter table public.course_unlock_schedules enable row level security;

revoke all on public.course_unlock_schedules from anon, authenticated;
grant select on public.course_unlock_schedules to anon, authenticated;
grant insert, update, delete on public.course_unlock_schedules to authenticated;
grant all on public.course_unlock_schedules to service_role;

drop policy if exists course_unlock_schedules_select on public.course_unlock_schedules;
create policy course_unlock_schedules_select on public.course_unlock_schedules for select to anon, authenticated
  using (exists (select 1 from public.courses c where c.id = course_id));  -- the courses policy decides

drop policy if exists course_unlock_schedules_admin_insert on public.course_unlock_schedules;
create policy course_unlock_schedules_admin_insert on public.course_unlock_schedules for insert to authenticated
  with check (app_private.is_admin());

drop policy if exists course_unlock_schedules_admin_update on public.course_unlock_schedules;
create policy course_unlock_schedules_admin_update on public.course_unlock_schedules for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists course_unlock_schedules_admin_delete on public.course_unlock_schedules;
create policy course_unlock_schedules_admin_delete on public.course_unlock_schedules for delete to authenticated
  using (app_private.is_admin());
