-- courses: visitors see public courses, signed-in users see every course card
-- (Gratuite/Payante); admins write. Deleting a course cascades to its lessons, whose
-- files are removed by the course_content trigger, and removes its cover.
alter table public.courses enable row level security;

revoke all on public.courses from anon, authenticated;
grant select on public.courses to anon, authenticated;
grant insert, update, delete on public.courses to authenticated;
grant all on public.courses to service_role;

drop policy if exists courses_select_public on public.courses;
create policy courses_select_public on public.courses for select to anon
  using (visibility = 'public');

drop policy if exists courses_select on public.courses;
create policy courses_select on public.courses for select to authenticated using (true);

drop policy if exists courses_admin_insert on public.courses;
create policy courses_admin_insert on public.courses for insert to authenticated
  with check (app_private.is_admin());

drop policy if exists courses_admin_update on public.courses;
create policy courses_admin_update on public.courses for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists courses_admin_delete on public.courses;
create policy courses_admin_delete on public.courses for delete to authenticated
  using (app_private.is_admin());
