drop function if exists public.get_course_progress(uuid, uuid);
