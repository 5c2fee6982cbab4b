-- Back to the device table of 0001/0002 (its rows are not restored: devices sign in again).
drop trigger if exists app_session_ending on auth.sessions;
drop view if exists public.user_sessions;
drop function if exists app_private.user_session_insert();
drop function if exists app_private.user_session_update();
drop function if exists app_private.user_session_delete();
drop function if exists app_private.auth_session_ending();
drop function if exists app_private.end_session(uuid, text);
drop function if exists app_private.device_name(text);
drop table if exists app_private.ended_sessions;
drop table if exists app_private.session_devices;

create table public.user_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references app_private.profiles (id) on delete cascade default auth.uid(),
  device_name text,
  ip_address text,
  last_active timestamptz not null default now(),
  is_current boolean not null default true,
  session_id uuid,
  created_at timestamptz not null default now()
);
create index user_sessions_user_idx on public.user_sessions (user_id, is_current);
alter table public.user_sessions enable row level security;
-- Device sessions: a row records the auth session of the JWT that created it; ending the
-- row (is_current -> false) deletes that auth session, which revokes its refresh tokens.

create function app_private.user_session_recorded() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if current_user in ('anon', 'authenticated') or new.session_id is null then
    new.session_id := nullif(auth.jwt() ->> 'session_id', '')::uuid;
  end if;
  if current_user in ('anon', 'authenticated') then
    new.is_current := true;
    new.last_active := now();
  end if;
  return new;
end
$$;
create trigger user_session_recorded before insert on public.user_sessions
  for each row execute function app_private.user_session_recorded();

create function app_private.user_session_guard() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.is_current and not old.is_current then
    raise exception 'an ended session cannot be made current again' using errcode = '42501';
  end if;
  if current_user in ('anon', 'authenticated')
     and (new.user_id, new.session_id, new.device_name, new.ip_address)
         is distinct from (old.user_id, old.session_id, old.device_name, old.ip_address) then
    raise exception 'only last_active and is_current of a session may change' using errcode = '42501';
  end if;
  return new;
end
$$;
create trigger user_session_guard before update on public.user_sessions
  for each row execute function app_private.user_session_guard();

create function app_private.user_session_ended() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if old.session_id is not null then
    delete from auth.sessions s where s.id = old.session_id;
  end if;
  return null;
end
$$;
create trigger user_session_ended after update of is_current on public.user_sessions
  for each row when (old.is_current and not new.is_current)
  execute function app_private.user_session_ended();
create trigger user_session_deleted after delete on public.user_sessions
  for each row when (old.is_current)
  execute function app_private.user_session_ended();

