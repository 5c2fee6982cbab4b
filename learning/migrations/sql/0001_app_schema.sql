-- The learning site's tables (spec section 3). Access rules live in policies/*.sql;
-- functions and cross-cutting triggers in 0002.

create schema if not exists app_private;  -- not exposed by /rest/v1
comment on schema app_private is 'Helpers and the profiles base table; never exposed through the API';

create type public.student_role as enum ('debutant', 'intermédiaire', 'avancé');
create type public.user_role as enum ('user', 'admin');
create type public.course_visibility as enum ('public', 'private');
create type public.content_file_type as enum ('video', 'document', 'pdf', 'image', 'audio', 'other');

-- Frozen clock: tests move app.frozen_now; everything time-dependent reads app_now().
create function app_private.app_now() returns timestamptz
language sql stable
set search_path = ''
as $$
  select coalesce(nullif(current_setting('app.frozen_now', true), '')::timestamptz, now())
$$;

-- profiles: the base table is private; public.profiles (below) is a view that masks the
-- personal columns for everyone but the user and admins.
create table app_private.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  email text,
  full_name text,
  country text,
  whatsapp_number text,
  student_role public.student_role not null default 'debutant',
  agent boolean not null default false,
  role public.user_role not null default 'user',
  paid boolean not null default false,
  date_paid timestamptz,
  expire_date timestamptz,
  created_at timestamptz not null default now()
);
create index profiles_email_idx on app_private.profiles (lower(email));
create index profiles_admin_idx on app_private.profiles (id) where role = 'admin';

create table public.books (
  id uuid primary key default gen_random_uuid(),
  title text not null check (char_length(btrim(title)) >= 1),
  description text,
  pages integer not null default 0 check (pages >= 0),
  file_size bigint check (file_size >= 0),
  file_path text,
  cover_url text,
  created_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now()
);
create index books_created_at_idx on public.books (created_at desc);

create table public.user_book_access (
  user_id uuid not null references app_private.profiles (id) on delete cascade,
  book_id uuid not null references public.books (id) on delete cascade,
  granted_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  primary key (user_id, book_id)
);
create index user_book_access_book_idx on public.user_book_access (book_id);

create table public.full_access_users (
  user_id uuid primary key references app_private.profiles (id) on delete cascade,
  granted_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now()
);

create table public.courses (
  id uuid primary key default gen_random_uuid(),
  title text not null check (char_length(btrim(title)) >= 3),
  description text,
  visibility public.course_visibility not null default 'public',
  cover_url text,
  created_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index courses_created_at_idx on public.courses (created_at desc);

create table public.course_content (
  id uuid primary key default gen_random_uuid(),
  course_id uuid not null references public.courses (id) on delete cascade,
  title text not null check (char_length(btrim(title)) >= 3),
  description text,
  file_path text,
  file_type public.content_file_type not null,
  file_size bigint check (file_size >= 0),
  video_embed_url text,
  order_index integer not null check (order_index >= 0),  -- filled by a trigger when omitted
  created_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),
  unique (id, course_id),  -- target of the (content_id, course_id) foreign keys below
  check (file_type <> 'video' or video_embed_url is not null)
);
create index course_content_order_idx on public.course_content (course_id, order_index, created_at);

create table public.course_access (
  user_id uuid not null references app_private.profiles (id) on delete cascade,
  course_id uuid not null references public.courses (id) on delete cascade,
  granted_by uuid references app_private.profiles (id) on delete set null default auth.uid(),
  created_at timestamptz not null default now(),  -- access start for unlocking
  primary key (user_id, course_id)
);
create index course_access_course_idx on public.course_access (course_id);

create table public.course_unlock_schedules (
  id uuid primary key default gen_random_uuid(),
  course_id uuid not null unique references public.courses (id) on delete cascade,
  unlock_interval_days integer not null default 1 check (unlock_interval_days >= 1),
  lessons_per_unlock integer not null default 1 check (lessons_per_unlock >= 1),
  start_delay_days integer not null default 0 check (start_delay_days >= 0),
  is_active boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);

-- A row = that lesson is granted (always unlocked) to the user; also its completion mark.
-- Keyed by the pair so supabase-js upsert (ON CONFLICT on the primary key) works.
create table public.user_content_progress (
  user_id uuid not null references app_private.profiles (id) on delete cascade,
  content_id uuid not null,
  course_id uuid not null,
  unlocked_at timestamptz not null default now(),
  primary key (user_id, content_id),
  foreign key (content_id, course_id) references public.course_content (id, course_id) on delete cascade
);
create index user_content_progress_course_idx on public.user_content_progress (user_id, course_id);

create table public.content_views (
  user_id uuid not null references app_private.profiles (id) on delete cascade,
  content_id uuid not null references public.course_content (id) on delete cascade,
  viewed_at timestamptz not null default now(),
  primary key (user_id, content_id)
);

create table public.content_comments (
  id uuid primary key default gen_random_uuid(),
  content_id uuid not null references public.course_content (id) on delete cascade,
  user_id uuid not null references app_private.profiles (id) on delete cascade default auth.uid(),
  content text not null check (btrim(content) <> ''),
  created_at timestamptz not null default now()
);
create index content_comments_content_idx on public.content_comments (content_id, created_at);

create table public.comment_replies (
  id uuid primary key default gen_random_uuid(),
  comment_id uuid not null references public.content_comments (id) on delete cascade,
  user_id uuid not null references app_private.profiles (id) on delete cascade default auth.uid(),
  content text not null check (btrim(content) <> ''),
  created_at timestamptz not null default now()
);
create index comment_replies_comment_idx on public.comment_replies (comment_id, created_at);

create table public.private_messages (
  id uuid primary key default gen_random_uuid(),
  sender_id uuid not null references app_private.profiles (id) on delete cascade default auth.uid(),
  recipient_id uuid not null references app_private.profiles (id) on delete cascade,
  content text not null check (btrim(content) <> ''),
  is_read boolean not null default false,
  created_at timestamptz not null default now(),
  check (sender_id <> recipient_id)
);
create index private_messages_recipient_idx on public.private_messages (recipient_id, is_read);
create index private_messages_sender_idx on public.private_messages (sender_id);

create table public.user_sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references app_private.profiles (id) on delete cascade default auth.uid(),
  device_name text,
  ip_address text,
  last_active timestamptz not null default now(),
  is_current boolean not null default true,
  session_id uuid,  -- the auth session of the JWT that recorded the device (set by a trigger)
  created_at timestamptz not null default now()
);
create index user_sessions_user_idx on public.user_sessions (user_id, is_current);

-- The API face of profiles: personal and payment columns read as null unless the reader
-- is the user or an admin (the contact admin's e-mail is public: clients look it up).
create function app_private.is_admin(uid uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select exists (select 1 from app_private.profiles p where p.id = uid and p.role = 'admin')
$$;

create function app_private.sees_private(profile_id uuid) returns boolean
language sql stable
set search_path = ''
as $$
  select current_user not in ('anon', 'authenticated')
      or profile_id = auth.uid()
      or app_private.is_admin(auth.uid())
$$;

create function app_private.is_contact_admin_email(profile_email text) returns boolean
language sql stable
set search_path = ''
as $$
  select profile_email is not null
     and lower(profile_email) = lower(nullif(current_setting('app.contact_admin_email', true), ''))
$$;

create view public.profiles with (security_invoker = true) as
select
  p.id,
  case when app_private.sees_private(p.id) or app_private.is_contact_admin_email(p.email)
       then p.email end as email,
  p.full_name,
  case when app_private.sees_private(p.id) then p.country end as country,
  case when app_private.sees_private(p.id) then p.whatsapp_number end as whatsapp_number,
  p.student_role,
  p.agent,
  p.role,
  case when app_private.sees_private(p.id) then p.paid end as paid,
  case when app_private.sees_private(p.id) then p.date_paid end as date_paid,
  case when app_private.sees_private(p.id) then p.expire_date end as expire_date,
  p.created_at
from app_private.profiles p;
comment on view public.profiles is 'User profiles; personal and payment columns masked except for the user and admins';

-- Masked columns make the view's own UPDATE impossible: write through to the base table,
-- as the caller (its RLS and the column-guard trigger decide).
create function app_private.profiles_view_update() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  update app_private.profiles set
    full_name = new.full_name,
    country = new.country,
    whatsapp_number = new.whatsapp_number,
    student_role = new.student_role,
    agent = new.agent,
    role = new.role,
    paid = new.paid,
    date_paid = new.date_paid,
    expire_date = new.expire_date
  where id = old.id;
  if not found then
    return null;
  end if;
  return new;
end
$$;
create trigger profiles_view_update instead of update on public.profiles
  for each row execute function app_private.profiles_view_update();

-- Only admins (and the platform itself) change role, payment and agent fields.
create function app_private.profiles_guard() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if current_user in ('anon', 'authenticated') and not app_private.is_admin(auth.uid()) then
    if (new.role, new.paid, new.date_paid, new.expire_date, new.agent)
       is distinct from (old.role, old.paid, old.date_paid, old.expire_date, old.agent) then
      raise exception 'only an administrator may change role, payment or agent fields'
        using errcode = '42501';
    end if;
  end if;
  if new.id is distinct from old.id or (new.email is distinct from old.email and current_user in ('anon', 'authenticated')) then
    raise exception 'id and email of a profile cannot be changed here' using errcode = '42501';
  end if;
  return new;
end
$$;
create trigger profiles_guard before update on app_private.profiles
  for each row execute function app_private.profiles_guard();

-- A profile per auth user, from the signup metadata.
create function app_private.create_profile_for_user() returns trigger
language plpgsql security definer
set search_path = ''
as $$
declare
  meta jsonb := coalesce(new.raw_user_meta_data, '{}'::jsonb);
  level public.student_role := 'debutant';
begin
  if meta ->> 'student_role' in ('debutant', 'intermédiaire', 'avancé') then
    level := (meta ->> 'student_role')::public.student_role;
  end if;
  insert into app_private.profiles (id, email, full_name, country, whatsapp_number, student_role)
  values (
    new.id, new.email,
    nullif(btrim(meta ->> 'full_name'), ''),
    nullif(btrim(meta ->> 'country'), ''),
    nullif(btrim(meta ->> 'whatsapp_number'), ''),
    level)
  on conflict (id) do nothing;
  return new;
end
$$;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function app_private.create_profile_for_user();

create function app_private.sync_profile_email() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  update app_private.profiles set email = new.email where id = new.id;
  return new;
end
$$;
create trigger on_auth_user_email_changed after update of email on auth.users
  for each row when (old.email is distinct from new.email)
  execute function app_private.sync_profile_email();

-- New lessons go last unless an order_index is given.
create function app_private.course_content_order_index() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if new.order_index is null then
    perform pg_advisory_xact_lock(hashtext(new.course_id::text));
    select coalesce(max(c.order_index) + 1, 0) into new.order_index
      from public.course_content c where c.course_id = new.course_id;
  end if;
  return new;
end
$$;
create trigger course_content_order_index before insert on public.course_content
  for each row execute function app_private.course_content_order_index();

create function app_private.touch_updated_at() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  new.updated_at := now();
  return new;
end
$$;
create trigger courses_touch before update on public.courses
  for each row execute function app_private.touch_updated_at();
create trigger course_unlock_schedules_touch before update on public.course_unlock_schedules
  for each row execute function app_private.touch_updated_at();

-- Progress rows may omit course_id: it is the lesson's.
create function app_private.progress_course_id() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  if new.course_id is null then
    select c.course_id into new.course_id from public.course_content c where c.id = new.content_id;
  end if;
  return new;
end
$$;
create trigger user_content_progress_course_id before insert on public.user_content_progress
  for each row execute function app_private.progress_course_id();

grant usage on schema app_private to anon, authenticated, service_role;
