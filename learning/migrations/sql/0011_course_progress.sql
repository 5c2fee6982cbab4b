-- Course progress, one rule for every screen (course list, course page, admin):
--   watched  = the learner's content_views rows (opening a lesson records one),
--   unlocked = exactly what get_user_unlocked_content returns to them (the schedule with
--              course access, lessons granted one by one, or the whole course with course
--              access and no schedule; every lesson for an admin).
-- Progress is watched-and-unlocked over unlocked. A grant (user_content_progress) unlocks
-- a lesson; it never completes it. The course is complete once every one of its lessons
-- has been watched (all unlocked by then), so 100 % with lessons still locked by the
-- schedule means "up to date", not "finished".
--
-- Security definer, like get_user_unlocked_content, because unlocking reads the schedule and
-- the access rows of the learner asked about; may_ask_about keeps a learner to their own
-- progress (admins and the service role: anyone's). Visitors have no progress.
create function public.get_course_progress(user_id uuid, course_id uuid default null)
returns table (course_id uuid, watched_count integer, unlocked_count integer, lesson_count integer,
               percent integer, completed boolean)
language sql stable security definer
set search_path = ''
as $$
  with asked as (
    select c.id
    from public.courses c
    where (get_course_progress.course_id is null or c.id = get_course_progress.course_id)
      and get_course_progress.user_id is not null
      and app_private.may_ask_about(get_course_progress.user_id)
  ),
  counts as (
    select a.id,
           (select count(*) from public.course_content l where l.course_id = a.id) as lessons,
           count(u.id) as unlocked,
           count(v.content_id) as watched
    from asked a
    left join lateral public.get_user_unlocked_content(get_course_progress.user_id, a.id) u on true
    left join public.content_views v on v.user_id = get_course_progress.user_id and v.content_id = u.id
    group by a.id
  )
  select n.id, n.watched::integer, n.unlocked::integer, n.lessons::integer,
         -- rounded down: 100 % only once every unlocked lesson is watched
         case when n.unlocked = 0 then 0 else (100 * n.watched / n.unlocked)::integer end,
         n.lessons > 0 and n.watched = n.lessons
  from counts n
  -- the list (no course given) holds the courses where something is unlocked
  where n.unlocked > 0 or get_course_progress.course_id is not null
$$;
comment on function public.get_course_progress(uuid, uuid) is
  'Watched (content_views) over unlocked (get_user_unlocked_content) lessons per course; the caller''s own, or anyone''s for admins';

revoke execute on function public.get_course_progress(uuid, uuid) from public, anon;
grant execute on function public.get_course_progress(uuid, uuid) to authenticated, service_role;
