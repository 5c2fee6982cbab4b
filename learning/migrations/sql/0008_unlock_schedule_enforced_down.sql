-- Back to 0007: course access opens every lesson again; the schedule only feeds
-- get_user_unlocked_content.
alter table public.course_unlock_schedules
  drop constraint course_unlock_schedules_unlock_interval_days_check,
  drop constraint course_unlock_schedules_lessons_per_unlock_check,
  drop constraint course_unlock_schedules_start_delay_days_check,
  add constraint course_unlock_schedules_unlock_interval_days_check check (unlock_interval_days >= 1),
  add constraint course_unlock_schedules_lessons_per_unlock_check check (lessons_per_unlock >= 1),
  add constraint course_unlock_schedules_start_delay_days_check check (start_delay_days >= 0);

drop function if exists public.preview_unlock_schedule(uuid, integer, integer, integer, integer);
drop function if exists public.get_lesson_status(uuid);
drop function if exists public.get_course_outline(uuid);

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
grant execute on function app_private.scheduled_lesson_count(timestamptz, integer, integer, integer, timestamptz)
  to anon, authenticated, service_role;

create or replace function app_private.can_read_lesson(uid uuid, content uuid, course uuid) returns boolean
language sql stable security definer
set search_path = ''
as $$
  select app_private.has_course_access(uid, course)
      or (uid is not null and exists (
            select 1 from public.user_content_progress g where g.user_id = uid and g.content_id = content))
$$;

create or replace function public.get_user_unlocked_content(user_id_param uuid, course_id_param uuid)
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

drop function if exists app_private.is_granted_lesson(uuid, uuid);
drop function if exists app_private.course_unlock_times(uuid, uuid);
drop function if exists app_private.unlock_offset_days(bigint, integer, integer, integer);
