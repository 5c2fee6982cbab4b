-- Access checks. app_private.* answer for any user and are used by the policies;
-- the public RPCs answer only about the caller (admins and the service role: anyone).

-- Platform callers (service_role, the owner) are trusted; anon/authenticated are not.
-- Inside SECURITY DEFINER functions current_user is the owner, so read the request's role.
create function app_private.caller_is_privileged() returns boolean
language sql stable
set search_path = ''
as $$
  select coalesce(nullif(current_setting('role', true), 'none'), session_user::text)
         not in ('anon', 'authenticated', 'authenticator')
$$;

-- May the caller ask questions about user `uid`?
create function app_private.may_ask_about(uid uuid) returns boolean
language sql stable
set search_path = ''
as $$
  select app_private.caller_is_privileged()
      or coalesce(uid = auth.uid(), false)
      or app_private.is_admin(auth.uid())
$$;

create function app_private.is_admin() returns boolean
language sql stable
set search_path = ''
as $$
  select app_private.is_admin(auth.uid())
$$;

create function app_private.has_full_access(uid uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select exists (select 1 from public.full_access_users f where f.user_id = uid)
$$;

create function app_private.has_course_access(uid uuid, cid uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select exists (select 1 from public.courses c where c.id = cid and c.visibility = 'public')
      or (uid is not null and (
            app_private.is_admin(uid)
         or app_private.has_full_access(uid)
         or exists (select 1 from public.course_access a where a.user_id = uid and a.course_id = cid)))
$$;

create function app_private.has_book_access(uid uuid, bid uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select uid is not null and (
       app_private.is_admin(uid)
    or app_private.has_full_access(uid)
    or exists (select 1 from public.user_book_access a where a.user_id = uid and a.book_id = bid))
$$;

-- A lesson row (and its file) is readable with course access or when granted one by one.
create function app_private.can_read_lesson(uid uuid, content uuid, course uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select app_private.has_course_access(uid, course)
      or (uid is not null and exists (
            select 1 from public.user_content_progress g where g.user_id = uid and g.content_id = content))
$$;

create function app_private.can_read_content(uid uuid, content uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select exists (select 1 from public.course_content c
                 where c.id = content and app_private.can_read_lesson(uid, c.id, c.course_id))
$$;

-- May signed-in user `uid` see another user's name and role (comment author, message peer)?
create function app_private.is_visible_peer(uid uuid, other uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select uid is not null and (
       app_private.is_admin(other)
    or exists (select 1 from public.private_messages m
               where (m.sender_id = uid and m.recipient_id = other) or (m.sender_id = other and m.recipient_id = uid))
    or exists (select 1 from public.content_comments c
               where c.user_id = other and app_private.can_read_content(uid, c.content_id))
    or exists (select 1 from public.comment_replies r join public.content_comments c on c.id = r.comment_id
               where r.user_id = other and app_private.can_read_content(uid, c.content_id)))
$$;

-- When `uid` started having access to course `cid` (null: no access).
create function app_private.access_start(uid uuid, cid uuid) returns timestamptz
language sql stable security definer
set search_path = ''
as $$
  select least(
    (select a.created_at from public.course_access a where a.user_id = uid and a.course_id = cid),
    (select p.created_at from app_private.profiles p
      where p.id = uid and (app_private.has_full_access(uid)
                            or exists (select 1 from public.courses c where c.id = cid and c.visibility = 'public'))))
$$;

-- How many lessons (in course order) a schedule has unlocked `since` access started.
create function app_private.scheduled_lesson_count(
  since timestamptz, interval_days integer, per_unlock integer, delay_days integer, at timestamptz
) returns bigint
language sql immutable
set search_path = ''
as $$
  select case
    when since is null or at < since + make_interval(days => delay_days) then 0
    else per_unlock::bigint * (1 + floor(
      extract(epoch from at - (since + make_interval(days => delay_days)))
      / extract(epoch from make_interval(days => interval_days)))::bigint)
  end
$$;

-- ---------------------------------------------------------------------------------------
-- RPCs (/rest/v1/rpc/<name>): parameter names are the client's.

create function public.user_has_full_access(user_id uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select app_private.may_ask_about(user_has_full_access.user_id)
     and app_private.has_full_access(user_has_full_access.user_id)
$$;

create function public.user_has_book_access(user_id uuid, book_id uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select app_private.may_ask_about(user_has_book_access.user_id)
     and app_private.has_book_access(user_has_book_access.user_id, user_has_book_access.book_id)
$$;

create function public.user_has_course_access(user_id uuid, course_id uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select app_private.may_ask_about(user_has_course_access.user_id)
     and app_private.has_course_access(user_has_course_access.user_id, user_has_course_access.course_id)
$$;

-- What the course list shows: every course to a signed-in user (cards say Gratuite/Payante).
create function public.get_visible_courses(user_id uuid) returns setof public.courses
language sql stable security definer
set search_path = ''
as $$
  select c.* from public.courses c
  where app_private.may_ask_about(get_visible_courses.user_id)
    and (get_visible_courses.user_id is not null or c.visibility = 'public')
  order by c.created_at desc
$$;

-- The lessons of a course that user may read, in course order.
create function public.get_visible_course_content(user_id uuid, course_id uuid) returns setof public.course_content
language sql stable security definer
set search_path = ''
as $$
  select c.* from public.course_content c
  where c.course_id = get_visible_course_content.course_id
    and app_private.may_ask_about(get_visible_course_content.user_id)
    and app_private.can_read_content(get_visible_course_content.user_id, c.id)
  order by c.order_index, c.created_at
$$;

-- The unlocked lessons of a course for a user: everything for admins; lessons granted one
-- by one; and, with an active schedule and course access, the first N lessons.
create function public.get_user_unlocked_content(user_id_param uuid, course_id_param uuid)
returns setof public.course_content
language sql stable security definer
set search_path = ''
as $$
  with ordered as (
    select c.*, row_number() over (order by c.order_index, c.created_at, c.id) as position
    from public.course_content c
    where c.course_id = course_id_param
  ),
  schedule as (
    select s.* from public.course_unlock_schedules s
    where s.course_id = course_id_param and s.is_active
  ),
  allowed as (
    select coalesce((
      select app_private.scheduled_lesson_count(
               app_private.access_start(user_id_param, course_id_param),
               s.unlock_interval_days, s.lessons_per_unlock, s.start_delay_days, app_private.app_now())
      from schedule s
      where app_private.has_course_access(user_id_param, course_id_param)), 0) as n
  )
  select o.id, o.course_id, o.title, o.description, o.file_path, o.file_type, o.file_size,
         o.video_embed_url, o.order_index, o.created_by, o.created_at
  from ordered o, allowed
  where app_private.may_ask_about(user_id_param)
    and (app_private.is_admin(user_id_param)
         or o.position <= allowed.n
         or exists (select 1 from public.user_content_progress g
                    where g.user_id = user_id_param and g.content_id = o.id))
  order by o.order_index, o.created_at
$$;

-- ---------------------------------------------------------------------------------------
-- Storage follows the rows: deleting a book removes its PDF and cover, deleting a lesson
-- (directly or with its course) removes its file, deleting a course removes its cover.
-- storage.objects belongs to the storage service; skipped when it is not installed.

create function app_private.remove_storage_object(bucket text, object_name text) returns void
language plpgsql security definer
set search_path = ''
as $$
begin
  if object_name is null or object_name = '' or object_name ~ '^[a-z]+://' then
    return;  -- nothing stored, or an external URL
  end if;
  if to_regclass('storage.objects') is not null then
    execute 'delete from storage.objects where bucket_id = $1 and name = $2' using bucket, object_name;
  end if;
end
$$;

create function app_private.book_deleted() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  perform app_private.remove_storage_object('books', old.file_path);
  perform app_private.remove_storage_object('covers', old.cover_url);
  return old;
end
$$;
create trigger book_deleted after delete on public.books
  for each row execute function app_private.book_deleted();

create function app_private.course_content_deleted() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  perform app_private.remove_storage_object('course-content', old.file_path);
  return old;
end
$$;
create trigger course_content_deleted after delete on public.course_content
  for each row execute function app_private.course_content_deleted();

create function app_private.course_deleted() returns trigger
language plpgsql security definer
set search_path = ''
as $$
begin
  perform app_private.remove_storage_object('covers', old.cover_url);
  return old;
end
$$;
create trigger course_deleted after delete on public.courses
  for each row execute function app_private.course_deleted();

-- ---------------------------------------------------------------------------------------
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

-- Helpers are called from policies by the API roles; the RPCs are granted by default
-- privileges. Trigger functions need no grant.
grant execute on all functions in schema app_private to anon, authenticated, service_role;
