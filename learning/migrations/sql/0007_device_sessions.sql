-- Connected devices are the user's auth sessions. public.user_sessions used to be a table the
-- web filled at password sign-in only, so sessions opened by sign-up, recovery or a magic
-- link counted toward the device limit while nobody could see or end them. It is now a view
-- of auth.sessions (one row per session, whatever opened it) plus the recently ended ones,
-- with the spec's columns. Ending a device (is_current -> false, or DELETE) deletes exactly
-- that auth session: its refresh tokens cascade away and the device is signed out.

drop trigger if exists user_session_deleted on public.user_sessions;
drop trigger if exists user_session_ended on public.user_sessions;
drop trigger if exists user_session_guard on public.user_sessions;
drop trigger if exists user_session_recorded on public.user_sessions;
drop function if exists app_private.user_session_ended();
drop function if exists app_private.user_session_guard();
drop function if exists app_private.user_session_recorded();
drop table public.user_sessions;

-- What the device says about itself: a name it chose and its heartbeat (every 30 s).
create table app_private.session_devices (
  session_id uuid primary key references auth.sessions (id) on delete cascade,
  device_name text check (char_length(device_name) between 1 and 100),
  last_active timestamptz not null default now()
);

-- Sessions that ended, kept a week so the ended device learns why at its next status check.
create table app_private.ended_sessions (
  id uuid primary key,  -- the auth session's id
  user_id uuid not null,
  device_name text,
  ip_address text,
  last_active timestamptz,
  created_at timestamptz,
  ended_at timestamptz not null default now(),
  -- user: from another of the user's devices (or a sign-out everywhere); admin: by an
  -- administrator; expired: time box or inactivity; evicted: to make room for a recovery
  -- or magic link at the device limit; password_changed: a new password ends the other
  -- sessions; signed_out: anything else (e.g. a stolen refresh token reused)
  end_reason text not null check (end_reason in ('user', 'admin', 'expired', 'evicted', 'password_changed', 'signed_out'))
);
create index ended_sessions_user_idx on app_private.ended_sessions (user_id);
create index ended_sessions_ended_at_idx on app_private.ended_sessions (ended_at);

-- '{browser} on {OS}' from a user agent, as the web names devices (features/sessions/lib/device.ts).
create function app_private.device_name(user_agent text) returns text
language sql immutable parallel safe
set search_path = ''
as $$
  select case when coalesce(user_agent, '') = '' then null else
    case
      when user_agent ~ 'Edg/' then 'Edge'
      when user_agent ~ 'OPR/|Opera' then 'Opera'
      when user_agent ~ 'Firefox/|FxiOS' then 'Firefox'
      when user_agent ~ 'Chrome/|CriOS|Chromium' then 'Chrome'
      when user_agent ~ 'Safari/' then 'Safari'
      else 'Unknown Browser'
    end || ' on ' ||
    case
      when user_agent ~ 'Windows' then 'Windows'
      when user_agent ~ 'Android' then 'Android'
      when user_agent ~ 'iPhone|iPad|iPod' then 'iOS'
      when user_agent ~ 'Mac OS X|Macintosh' then 'macOS'
      when user_agent ~ 'CrOS' then 'ChromeOS'
      when user_agent ~ 'Linux' then 'Linux'
      else 'Unknown OS'
    end
  end
$$;

-- The caller's own sessions (all of them for an admin or the server's roles). The auth
-- service keeps not_after at the moment a session ends under its time box and inactivity
-- settings, so a session past it is shown ended ('expired') until it is swept.
create view public.user_sessions with (security_barrier = true) as
select
  s.id,
  s.user_id,
  coalesce(d.device_name, app_private.device_name(s.user_agent)) as device_name,
  host(s.ip) as ip_address,
  greatest(d.last_active, s.refreshed_at at time zone 'utc', s.updated_at, s.created_at) as last_active,
  (s.not_after is null or s.not_after > now()) as is_current,
  case when s.not_after <= now() then 'expired' end as end_reason,
  coalesce(s.id::text = auth.jwt() ->> 'session_id', false) as is_this_device,
  s.created_at,
  p.email as user_email,
  p.full_name as user_full_name
from auth.sessions s
left join app_private.session_devices d on d.session_id = s.id
left join app_private.profiles p on p.id = s.user_id
where app_private.may_ask_about(s.user_id)
union all
select
  e.id,
  e.user_id,
  e.device_name,
  e.ip_address,
  e.last_active,
  false,
  e.end_reason,
  coalesce(e.id::text = auth.jwt() ->> 'session_id', false),
  e.created_at,
  p.email,
  p.full_name
from app_private.ended_sessions e
left join app_private.profiles p on p.id = e.user_id
where app_private.may_ask_about(e.user_id);

comment on view public.user_sessions is
  'Connected devices: the auth sessions of the caller (all for admins), and recently ended ones (is_current false, end_reason)';

-- Ends one auth session, saying why (read by app_private.auth_session_ending).
create function app_private.end_session(session_id uuid, reason text) returns void
language plpgsql security definer
set search_path = ''
as $$
begin
  perform set_config('app.session_end_reason', reason, true);
  delete from auth.sessions s where s.id = end_session.session_id;
  perform set_config('app.session_end_reason', '', true);
end
$$;
revoke all on function app_private.end_session(uuid, text) from public, anon, authenticated;

-- Every way a session ends (a device ended from the list, a sign-out, the auth service's
-- expiry sweep, a new password...) leaves a record for the ended device. Before delete: the
-- device row still exists (it cascades away with the session).
create function app_private.auth_session_ending() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  reason text := nullif(current_setting('app.session_end_reason', true), '');
begin
  if not exists (select 1 from auth.users u where u.id = old.user_id) then
    return old;  -- the account itself is being deleted
  end if;
  if reason is null then
    reason := case nullif(current_setting('auth.session_end_reason', true), '')
      when 'logout' then 'user'
      when 'evicted' then 'evicted'
      when 'expired' then 'expired'
      when 'password_changed' then 'password_changed'
      else 'signed_out'
    end;
  end if;
  insert into app_private.ended_sessions (id, user_id, device_name, ip_address, last_active, created_at, end_reason)
  select old.id, old.user_id,
         coalesce(d.device_name, app_private.device_name(old.user_agent)),
         host(old.ip),
         greatest(d.last_active, old.refreshed_at at time zone 'utc', old.updated_at, old.created_at),
         old.created_at, reason
  from (select 1) one
  left join app_private.session_devices d on d.session_id = old.id
  on conflict (id) do nothing;
  delete from app_private.ended_sessions e where e.ended_at < now() - interval '7 days';
  return old;
end
$$;
create trigger app_session_ending before delete on auth.sessions
  for each row execute function app_private.auth_session_ending();

-- POST user_sessions (the spec's call at sign-in): names the device of the caller's own
-- session (the JWT's session_id); user_id, when given, must be the caller. ip_address and
-- last_active are not taken from the client: the server saw the address, and now is now.
create function app_private.user_session_insert() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  sid uuid := nullif(auth.jwt() ->> 'session_id', '')::uuid;
begin
  if uid is null or sid is null then
    raise exception 'a device is recorded for a signed-in session only' using errcode = '42501';
  end if;
  if new.user_id is not null and new.user_id <> uid then
    raise exception 'a device is recorded for oneself only' using errcode = '42501';
  end if;
  if not exists (select 1 from auth.sessions s where s.id = sid and s.user_id = uid) then
    raise exception 'this session has ended' using errcode = '42501';
  end if;
  insert into app_private.session_devices as d (session_id, device_name, last_active)
  values (sid, nullif(btrim(new.device_name), ''), now())
  on conflict (session_id) do update
    set device_name = coalesce(excluded.device_name, d.device_name), last_active = now();
  select * into new from public.user_sessions v where v.id = sid;
  return new;
end
$$;
create trigger user_session_insert instead of insert on public.user_sessions
  for each row execute function app_private.user_session_insert();

-- PATCH: is_current false ends the session (the spec's call); last_active is a heartbeat
-- (set to now whatever was sent); device_name renames. Other columns are not writable
-- (column grants in policies/user_sessions.sql; checked here too for the server's roles).
create function app_private.user_session_update() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if (new.id, new.user_id, new.ip_address, new.created_at, new.end_reason, new.is_this_device, new.user_email, new.user_full_name)
     is distinct from
     (old.id, old.user_id, old.ip_address, old.created_at, old.end_reason, old.is_this_device, old.user_email, old.user_full_name) then
    raise exception 'only last_active, device_name and is_current of a session may change' using errcode = '42501';
  end if;
  if new.is_current and not old.is_current then
    raise exception 'an ended session cannot be made current again' using errcode = '42501';
  end if;
  if not old.is_current then
    return null;  -- an ended session does not change
  end if;
  if not new.is_current then
    perform app_private.end_session(old.id, case when old.user_id = auth.uid() then 'user' else 'admin' end);
  elsif new.last_active is distinct from old.last_active or new.device_name is distinct from old.device_name then
    insert into app_private.session_devices as d (session_id, device_name, last_active)
    values (old.id, case when new.device_name is distinct from old.device_name then nullif(btrim(new.device_name), '') end, now())
    on conflict (session_id) do update
      set device_name = case when new.device_name is distinct from old.device_name then excluded.device_name else d.device_name end,
          last_active = now();
  end if;
  select * into new from public.user_sessions v where v.id = old.id;
  return new;
end
$$;
create trigger user_session_update instead of update on public.user_sessions
  for each row execute function app_private.user_session_update();

-- DELETE: ends a live session like is_current -> false; forgets an ended one.
create function app_private.user_session_delete() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if old.is_current then
    perform app_private.end_session(old.id, case when old.user_id = auth.uid() then 'user' else 'admin' end);
  else
    perform app_private.end_session(old.id, 'expired');  -- expired but not yet swept
    delete from app_private.ended_sessions e where e.id = old.id;
  end if;
  return old;
end
$$;
create trigger user_session_delete instead of delete on public.user_sessions
  for each row execute function app_private.user_session_delete();
