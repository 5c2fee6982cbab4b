-- user_sessions: a view of the auth sessions (migrations/sql/0007_device_sessions.sql) whose
-- rows are the caller's own sessions, or everyone's for an admin; the row filter is in the
-- view (security_barrier), the writes go through its INSTEAD OF triggers:
--   POST names the device of the caller's own session (the JWT's session_id);
--   PATCH last_active is the heartbeat, device_name renames, is_current false ends it;
--   DELETE ends it too.
-- Visitors have nothing; the tables behind it are reached through the view only.
revoke all on public.user_sessions from anon, authenticated;
grant select, delete on public.user_sessions to authenticated;
grant insert (user_id, device_name, ip_address, last_active) on public.user_sessions to authenticated;
grant update (last_active, is_current, device_name) on public.user_sessions to authenticated;
grant all on public.user_sessions to service_role;

revoke all on app_private.session_devices, app_private.ended_sessions from anon, authenticated, service_role;
alter table app_private.session_devices enable row level security;
alter table app_private.ended_sessions enable row level security;
