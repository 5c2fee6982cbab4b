-- profiles: base table app_private.profiles behind the masking view public.profiles
-- (security_invoker: these policies apply to API callers reading or writing the view).
-- Rows: your own, admins', and the name/role of people you meet (comment authors on
-- lessons you can read, message counterparts). Columns: the view masks e-mail, country,
-- WhatsApp and payment fields for everyone but the user and admins. Role, payment and
-- agent fields are changed by admins only (trigger app_private.profiles_guard).
alter table app_private.profiles enable row level security;

revoke all on app_private.profiles from anon, authenticated;
grant select on app_private.profiles to anon, authenticated;
grant update (full_name, country, whatsapp_number, student_role, agent, role, paid, date_paid, expire_date)
  on app_private.profiles to authenticated;
grant delete on app_private.profiles to authenticated;
grant all on app_private.profiles to service_role;

revoke all on public.profiles from anon, authenticated;
grant select on public.profiles to anon, authenticated;
-- id, email (it follows auth.users) and created_at are not writable: a PATCH naming them is
-- refused (42501) rather than answered as if applied.
grant update (full_name, country, whatsapp_number, student_role, agent, role, paid, date_paid, expire_date)
  on public.profiles to authenticated;
grant delete on public.profiles to authenticated;
grant all on public.profiles to service_role;

drop policy if exists profiles_select on app_private.profiles;
create policy profiles_select on app_private.profiles for select to authenticated
  using (id = auth.uid() or app_private.is_admin() or app_private.is_visible_peer(auth.uid(), id));

drop policy if exists profiles_update on app_private.profiles;
create policy profiles_update on app_private.profiles for update to authenticated
  using (id = auth.uid() or app_private.is_admin())
  with check (id = auth.uid() or app_private.is_admin());

drop policy if exists profiles_delete on app_private.profiles;
create policy profiles_delete on app_private.profiles for delete to authenticated
  using (app_private.is_admin() and id <> auth.uid());
