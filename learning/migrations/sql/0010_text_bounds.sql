-- Every free text the site stores has a bound in the database: a learner could post a 5 MB
-- comment (201) that every other learner then downloaded with the lesson.
--
-- The constraints are named <table>_<column>_max_length, so a refused write (PostgREST's
-- 400 with code 23514 and the constraint's name in its message) is recognisable: the web
-- app shows its French message (web/src/config/text-limits.json holds the same numbers;
-- tests/app/test_text_bounds.py checks they agree).
--
-- The spec gives minimums only (titles at least 3 characters); the maximums are ours:
--   comments and replies  2,000 characters  (a few paragraphs; a chat-like panel of 400 px)
--   private messages      4,000 characters  (a longer letter to the teacher)
--   full name, country      100 characters
--   WhatsApp number          32 characters  (E.164 is 15 digits; room for spaces and signs)
--   titles                  200 characters
--   descriptions          5,000 characters
--   video embed URL       2,048 characters  (what browsers and CDNs accept in a URL)
--   file_path             1,024 bytes       (storage's object-name limit: nothing longer exists)
--   cover_url             2,048 bytes       (an object name, or a full URL)
-- Characters are counted as Postgres counts them (code points, char_length); paths in bytes
-- (octet_length), as storage counts object names. E-mail is not here: it is auth's
-- (auth.users), copied to profiles by a trigger.
--
-- Rows already over a bound (before this revision anything went) do not make the upgrade
-- fail, and are not left behind a NOT VALID constraint either (such a row could then no
-- longer be updated at all, e.g. a message marked read, and would still be served whole).
-- They are fitted before the constraints are added, and the original values are kept in
-- app_private.text_bound_originals so nothing is lost:
--   texts are trimmed and cut to the bound (what a reader sees starts the same);
--   file_path and cover_url over the bound are cleared: no stored object has such a name,
--   so the reference was already dead.
-- A warning names each column that had rows fitted.

create table app_private.text_bound_originals (
  table_name text not null,
  row_id uuid not null,
  column_name text not null,
  original text not null,
  saved_at timestamptz not null default now()
);
comment on table app_private.text_bound_originals is
  'Values cut or cleared by migration 0010 to fit the new length bounds, kept so nothing is lost';
-- The owner's bookkeeping, for no API role (closed here, from its creation on).
revoke all on app_private.text_bound_originals from public, anon, authenticated, service_role;
alter table app_private.text_bound_originals enable row level security;

do $$
declare
  b record;
  fitted bigint;
begin
  for b in
    select * from (values
      ('public.books', 'title', 200, 'cut'),
      ('public.books', 'description', 5000, 'cut'),
      ('public.books', 'file_path', 1024, 'clear'),
      ('public.books', 'cover_url', 2048, 'clear'),
      ('public.courses', 'title', 200, 'cut'),
      ('public.courses', 'description', 5000, 'cut'),
      ('public.courses', 'cover_url', 2048, 'clear'),
      ('public.course_content', 'title', 200, 'cut'),
      ('public.course_content', 'description', 5000, 'cut'),
      ('public.course_content', 'file_path', 1024, 'clear'),
      -- Required for a video lesson (cannot be cleared): cut like a text.
      ('public.course_content', 'video_embed_url', 2048, 'cut'),
      ('public.content_comments', 'content', 2000, 'cut'),
      ('public.comment_replies', 'content', 2000, 'cut'),
      ('public.private_messages', 'content', 4000, 'cut'),
      ('app_private.profiles', 'full_name', 100, 'cut'),
      ('app_private.profiles', 'country', 100, 'cut'),
      ('app_private.profiles', 'whatsapp_number', 32, 'cut')
    ) as v(tbl, col, max_len, how)
  loop
    execute format(
      'insert into app_private.text_bound_originals (table_name, row_id, column_name, original)'
      ' select %L, t.id, %L, t.%I from %s t where %s(t.%I) > %s',
      b.tbl, b.col, b.col, b.tbl,
      case b.how when 'cut' then 'char_length' else 'octet_length' end, b.col, b.max_len);
    get diagnostics fitted = row_count;
    if fitted > 0 then
      execute format(
        'update %s t set %I = %s where %s(t.%I) > %s',
        b.tbl, b.col,
        case b.how when 'cut' then format('left(btrim(t.%I), %s)', b.col, b.max_len) else 'null' end,
        case b.how when 'cut' then 'char_length' else 'octet_length' end, b.col, b.max_len);
      raise warning '%.%: % row(s) over % %; %, originals in app_private.text_bound_originals',
        b.tbl, b.col, fitted, b.max_len, case b.how when 'cut' then 'characters' else 'bytes' end,
        case b.how when 'cut' then 'cut to the bound' else 'cleared' end;
    end if;
  end loop;
end
$$;

-- The fitting updates queued realtime's deferred capture triggers (published tables); ALTER
-- TABLE refuses a table with pending trigger events, so they fire now.
set constraints all immediate;

alter table public.content_comments
  add constraint content_comments_content_max_length check (char_length(content) <= 2000);
alter table public.comment_replies
  add constraint comment_replies_content_max_length check (char_length(content) <= 2000);
alter table public.private_messages
  add constraint private_messages_content_max_length check (char_length(content) <= 4000);

alter table app_private.profiles
  add constraint profiles_full_name_max_length check (char_length(full_name) <= 100),
  add constraint profiles_country_max_length check (char_length(country) <= 100),
  add constraint profiles_whatsapp_number_max_length check (char_length(whatsapp_number) <= 32);

alter table public.books
  add constraint books_title_max_length check (char_length(title) <= 200),
  add constraint books_description_max_length check (char_length(description) <= 5000),
  add constraint books_file_path_max_length check (octet_length(file_path) <= 1024),
  add constraint books_cover_url_max_length check (octet_length(cover_url) <= 2048);

alter table public.courses
  add constraint courses_title_max_length check (char_length(title) <= 200),
  add constraint courses_description_max_length check (char_length(description) <= 5000),
  add constraint courses_cover_url_max_length check (octet_length(cover_url) <= 2048);

alter table public.course_content
  add constraint course_content_title_max_length check (char_length(title) <= 200),
  add constraint course_content_description_max_length check (char_length(description) <= 5000),
  add constraint course_content_file_path_max_length check (octet_length(file_path) <= 1024),
  add constraint course_content_video_embed_url_max_length check (char_length(video_embed_url) <= 2048);

-- The sign-up metadata is the client's: refusing it here would fail the sign-up with a 500
-- ("Database error saving new user"), so the profile keeps the first characters of an
-- over-long value (the sign-up form says the limits before sending).
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
    left(nullif(btrim(meta ->> 'full_name'), ''), 100),
    left(nullif(btrim(meta ->> 'country'), ''), 100),
    left(nullif(btrim(meta ->> 'whatsapp_number'), ''), 32),
    level)
  on conflict (id) do nothing;
  return new;
end
$$;
