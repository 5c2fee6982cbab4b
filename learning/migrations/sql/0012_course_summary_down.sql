drop function if exists public.get_course_summary(uuid);
