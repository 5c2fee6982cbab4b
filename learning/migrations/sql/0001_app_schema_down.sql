drop trigger if exists on_auth_user_created on auth.users;
drop trigger if exists on_auth_user_email_changed on auth.users;
drop view if exists public.profiles;
drop table if exists public.user_sessions, public.private_messages, public.comment_replies,
  public.content_comments, public.content_views, public.user_content_progress,
  public.course_unlock_schedules, public.course_access, public.course_content, public.courses,
  public.full_access_users, public.user_book_access, public.books;
drop schema if exists app_private cascade;
drop type if exists public.content_file_type, public.course_visibility, public.user_role, public.student_role;
