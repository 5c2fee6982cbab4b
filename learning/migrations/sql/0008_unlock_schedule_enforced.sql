-- The unlock schedule is enforced by RLS. Until now get_user_unlocked_content applied the
-- schedule while the course_content policy (and the lesson files' storage policy, comments,
-- views) let anyone with course access read every lesson. One definition now says when each
-- lesson opens for a user, and every reader follows it:
--   course_unlock_times  -> can_read_lesson (the policies) and get_user_unlocked_content,
--                           get_course_outline (the carousel: locked lessons and their date);
--   unlock_offset_days   -> also preview_unlock_schedule (the admin editor's preview).

-- Days after access started at which the lesson at `lesson_position` (1-based, course order)
-- opens: the start delay, then `per_unlock` lessons at once and as many more every interval.
create function app_private.unlock_offset_days(
  lesson_position bigint, interval_days integer, per_unlock integer, delay_days integer
) returns bigint
language sql immutable
set search_path = ''
as $$
  select delay_days + ((lesson_position - 1) / per_unlock) * interval_days::bigint
$$;

-- When each lesson of `course` opens for `uid`: '-infinity' = open (admins; course access
-- without an active schedule), a time = by the schedule from the access start, null = never
-- by this rule (no course access). Lessons granted one by one are open whatever this says.
create function app_private.course_unlock_times(uid uuid, course uuid)
returns table (content_id uuid, lesson_position bigint, unlocks_at timestamptz)
language sql stable security definer
set search_path = ''
as $$
  with lessons as (
    select c.id, row_number() over (order by c.order_index, c.created_at, c.id) as pos
    from public.course_content c
    where c.course_id = course
  ),
  rule as (
    select app_private.is_admin(uid) as admin,
           app_private.has_course_access(uid, course) as access,
           s.id is not null as scheduled,
           app_private.access_start(uid, course) as since,
           s.unlock_interval_days, s.lessons_per_unlock, s.start_delay_days
    from (select 1) as one
    left join public.course_unlock_schedules s on s.course_id = course and s.is_active
  )
  select l.id, l.pos,
         case
           when r.admin then '-infinity'::timestamptz
           when not r.access then null
           when not r.scheduled then '-infinity'::timestamptz
           -- bounded so that a huge course cannot push the date out of timestamptz's range
           else r.since + make_interval(days => least(app_private.unlock_offset_days(
                  l.pos, r.unlock_interval_days, r.lessons_per_unlock, r.start_delay_days), 1000000)::integer)
         end
  from lessons l, rule r
$$;

create function app_private.is_granted_lesson(uid uuid, content uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select uid is not null
     and exists (select 1 from public.user_content_progress g where g.user_id = uid and g.content_id = content)
$$;

-- A lesson row (and its file, comments, views) is readable once it is unlocked: granted one
-- by one, or opened by course_unlock_times. Used by the policies through can_read_content.
create or replace function app_private.can_read_lesson(uid uuid, content uuid, course uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select (uid is not null and app_private.is_admin(uid))
      or app_private.is_granted_lesson(uid, content)
      or exists (select 1 from app_private.course_unlock_times(uid, course) t
                 where t.content_id = content and t.unlocks_at <= app_private.app_now())
$$;

-- The unlocked lessons of a course for a user: exactly the rows the course_content policy
-- lets that user read.
create or replace function public.get_user_unlocked_content(user_id_param uuid, course_id_param uuid)
returns setof public.course_content
language sql stable security definer
set search_path = ''
as $$
  select c.*
  from public.course_content c
  where c.course_id = course_id_param
    and app_private.may_ask_about(user_id_param)
    and app_private.can_read_lesson(user_id_param, c.id, c.course_id)
  order by c.order_index, c.created_at
$$;

-- The caller's outline of a course: every lesson when the caller has course access (locked
-- ones included, with the date they open), otherwise the lessons granted one by one. Titles
-- and positions only: a locked lesson's file path or embed URL is never returned.
create function public.get_course_outline(course_id uuid)
returns table (id uuid, title text, file_type public.content_file_type, lesson_position bigint,
               unlocked boolean, unlocks_at timestamptz)
language sql stable security definer
set search_path = ''
as $$
  select o.id, o.title, o.file_type, o.lesson_position, o.unlocked,
         case when o.unlocked or not isfinite(o.unlocks_at) then null else o.unlocks_at end
  from (
    select c.id, c.title, c.file_type, t.lesson_position, t.unlocks_at, c.order_index, c.created_at,
           app_private.can_read_lesson(auth.uid(), c.id, c.course_id) as unlocked
    from public.course_content c
    join app_private.course_unlock_times(auth.uid(), get_course_outline.course_id) t on t.content_id = c.id
    where c.course_id = get_course_outline.course_id
  ) o
  where o.unlocked or app_private.has_course_access(auth.uid(), get_course_outline.course_id)
  order by o.lesson_position
$$;

-- A lesson opened by its address (/video/{id}) that the caller cannot read: does it exist
-- (its course, so the page can say "no access" rather than "not found"), and when does it
-- open for the caller? unlocked/unlocks_at are null without course access. Signed-in only.
create function public.get_lesson_status(content_id uuid)
returns table (course_id uuid, unlocked boolean, unlocks_at timestamptz)
language sql stable security definer
set search_path = ''
as $$
  select c.course_id, o.unlocked, o.unlocks_at
  from public.course_content c
  left join public.get_course_outline(c.course_id) o on o.id = c.id
  where c.id = get_lesson_status.content_id
    and (auth.uid() is not null or app_private.caller_is_privileged())
$$;

-- Admin preview: how many lessons of the course a learner whose access started
-- `days_since_access` days ago would have unlocked with these (unsaved) values.
create function public.preview_unlock_schedule(
  course_id uuid, unlock_interval_days integer, lessons_per_unlock integer, start_delay_days integer,
  days_since_access integer
) returns integer
language plpgsql stable security definer
set search_path = ''
as $$
begin
  if not (app_private.caller_is_privileged() or app_private.is_admin()) then
    raise exception 'only administrators preview unlock schedules' using errcode = '42501';
  end if;
  if unlock_interval_days is null or unlock_interval_days not between 1 and 365
     or lessons_per_unlock is null or lessons_per_unlock not between 1 and 100
     or start_delay_days is null or start_delay_days not between 0 and 365
     or days_since_access is null or days_since_access not between 0 and 100000 then
    raise exception 'schedule values out of range' using errcode = '22023',
      detail = 'unlock_interval_days 1..365, lessons_per_unlock 1..100, start_delay_days 0..365, days_since_access 0..100000';
  end if;
  return (
    select count(*)::integer
    from (select row_number() over (order by c.order_index, c.created_at, c.id) as pos
          from public.course_content c
          where c.course_id = preview_unlock_schedule.course_id) l
    where app_private.unlock_offset_days(l.pos, preview_unlock_schedule.unlock_interval_days,
            preview_unlock_schedule.lessons_per_unlock, preview_unlock_schedule.start_delay_days)
          <= preview_unlock_schedule.days_since_access);
end
$$;

-- The schedule's values are bounded by the database too (the editor says the same).
update public.course_unlock_schedules
   set unlock_interval_days = least(unlock_interval_days, 365),
       lessons_per_unlock = least(lessons_per_unlock, 100),
       start_delay_days = least(start_delay_days, 365)
 where unlock_interval_days > 365 or lessons_per_unlock > 100 or start_delay_days > 365;
alter table public.course_unlock_schedules
  drop constraint course_unlock_schedules_unlock_interval_days_check,
  drop constraint course_unlock_schedules_lessons_per_unlock_check,
  drop constraint course_unlock_schedules_start_delay_days_check,
  add constraint course_unlock_schedules_unlock_interval_days_check check (unlock_interval_days between 1 and 365),
  add constraint course_unlock_schedules_lessons_per_unlock_check check (lessons_per_unlock between 1 and 100),
  add constraint course_unlock_schedules_start_delay_days_check check (start_delay_days between 0 and 365);

grant execute on function app_private.unlock_offset_days(bigint, integer, integer, integer),
  app_private.course_unlock_times(uuid, uuid), app_private.is_granted_lesson(uuid, uuid)
  to anon, authenticated, service_role;
grant execute on function public.get_course_outline(uuid) to anon, authenticated, service_role;
revoke execute on function public.get_lesson_status(uuid) from public, anon;
grant execute on function public.get_lesson_status(uuid) to authenticated, service_role;
-- Admins only (checked inside); visitors may not call it at all.
revoke execute on function public.preview_unlock_schedule(uuid, integer, integer, integer, integer) from public, anon;
grant execute on function public.preview_unlock_schedule(uuid, integer, integer, integer, integer) to authenticated, service_role;

-- The count formula of 0002 is replaced by unlock_offset_days (one copy of the rule).
drop function app_private.scheduled_lesson_count(timestamptz, integer, integer, integer, timestamptz);
