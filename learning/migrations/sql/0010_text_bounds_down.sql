-- The bounds go; values fitted by the upgrade stay as they are (their originals go with
-- app_private.text_bound_originals).
alter table public.content_comments drop constraint if exists content_comments_content_max_length;
alter table public.comment_replies drop constraint if exists comment_replies_content_max_length;
alter table public.private_messages drop constraint if exists private_messages_content_max_length;

alter table app_private.profiles
  drop constraint if exists profiles_full_name_max_length,
  drop constraint if exists profiles_country_max_length,
  drop constraint if exists profiles_whatsapp_number_max_length;

alter table public.books
  drop constraint if exists books_title_max_length,
  drop constraint if exists books_description_max_length,
  drop constraint if exists books_file_path_max_length,
  drop constraint if exists books_cover_url_max_length;

alter table public.courses
  drop constraint if exists courses_title_max_length,
  drop constraint if exists courses_description_max_length,
  drop constraint if exists courses_cover_url_max_length;

alter table public.course_content
  drop constraint if exists course_content_title_max_length,
  drop constraint if exists course_content_description_max_length,
  drop constraint if exists course_content_file_path_max_length,
  drop constraint if exists course_content_video_embed_url_max_length;

drop table if exists app_private.text_bound_originals;

create or replace function app_private.create_profile_for_user() returns trigger
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
