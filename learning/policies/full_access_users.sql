-- full_access_users: every course and book, granted by admins; a user reads their own row.
alter table public.full_access_users enable row level security;

revoke all on public.full_access_users from anon, authenticated;
grant select, insert, update, delete on public.full_access_users to authenticated;
grant all on public.full_access_users to service_role;

drop policy if exists full_access_users_select on public.full_access_users;
create policy full_access_users_select on public.full_access_users for select to authenticated
  using (user_id = auth.uid() or app_private.is_admin());

drop policy if exists full_access_users_admin_insert on public.full_access_users;
create policy full_access_users_admin_insert on public.full_access_users for insert to authenticated
  with check (app_private.is_admin() and granted_by = auth.uid());

drop policy if exists full_access_users_admin_update on public.full_access_users;
create policy full_access_users_admin_update on public.full_access_users for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists full_access_users_admin_delete on public.full_access_users;
create policy full_access_users_admin_delete on public.full_access_users for delete to authenticated
  using (app_private.is_admin());
