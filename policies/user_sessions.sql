-- user_sessions: users record and read their own devices, touch last_active and end their
-- own; admins read all and end any. Ending (is_current -> false) deletes the auth session
-- recorded at insert (trigger), so that device is signed out at its next refresh.
alter table public.user_sessions enable row level security;

revoke all on public.user_sessions from anon, authenticated;
grant select, insert on public.user_sessions to authenticated;
grant update (last_active, is_current) on public.user_sessions to authenticated;
grant all on public.user_sessions to service_role;

drop policy if exists user_sessions_select on public.user_sessions;
create policy user_sessions_select on public.user_sessions for select to authenticated
  using (user_id = auth.uid() or app_private.is_admin());

drop policy if exists user_sessions_insert on public.user_sessions;
create policy user_sessions_insert on public.user_sessions for insert to authenticated
  with check (user_id = auth.uid());

drop policy if exists user_sessions_update on public.user_sessions;
create policy user_sessions_update on public.user_sessions for update to authenticated
  using (user_id = auth.uid() or app_private.is_admin())
  with check (user_id = auth.uid() or app_private.is_admin());
