-- A course's public summary, for a shared link: a visitor (or a learner without access)
-- opening /course/{id} of a private course learns what the course is, not its lessons.
-- The courses policy hides private courses from visitors, so this security-definer
-- function returns only the summary columns, for one course asked by its id (no listing):
-- title, description, cover, visibility and how many lessons it has.
create function public.get_course_summary(course_id uuid)
returns table (id uuid, title text, description text, visibility public.course_visibility,
               cover_url text, lesson_count integer, created_at timestamptz)
language sql stable security definer
set search_path = ''
as $$
  select c.id, c.title, c.description, c.visibility, c.cover_url,
         (select count(*)::integer from public.course_content l where l.course_id = c.id),
         c.created_at
  from public.courses c
  where c.id = get_course_summary.course_id
$$;
comment on function public.get_course_summary(uuid) is
  'Summary columns of one course (any visibility), for visitors following a shared link';

grant execute on function public.get_course_summary(uuid) to anon, authenticated, service_role;
