-- Fixture data for policies/matrix.yaml, inserted as the owner inside the check's
-- transaction (rolled back afterwards). %(name)s binds the ids declared in the matrix.
insert into auth.users (id, aud, role, email, raw_user_meta_data, email_confirmed_at, created_at, updated_at) values
  (%(admin)s, 'authenticated', 'authenticated', 'matrix-admin@example.invalid', '{"full_name": "Matrix Admin"}', now(), now(), now()),
  (%(learner)s, 'authenticated', 'authenticated', 'matrix-learner@example.invalid', '{"full_name": "No Access"}', now(), now(), now()),
  (%(member)s, 'authenticated', 'authenticated', 'matrix-member@example.invalid', '{"full_name": "Has Access"}', now(), now(), now()),
  (%(granted)s, 'authenticated', 'authenticated', 'matrix-granted@example.invalid', '{"full_name": "One Lesson"}', now(), now(), now()),
  (%(fulluser)s, 'authenticated', 'authenticated', 'matrix-full@example.invalid', '{"full_name": "Full Access"}', now(), now(), now()),
  (%(veteran)s, 'authenticated', 'authenticated', 'matrix-veteran@example.invalid', '{"full_name": "Long Access"}', now(), now(), now());
update app_private.profiles set role = 'admin' where id = %(admin)s;
-- App settings (SUPALITE_APP_*), for this check's transaction only.
select set_config('app.contact_admin_email', 'matrix-admin@example.invalid', true),
       set_config('app.owner_email', 'matrix-admin@example.invalid', true),
       set_config('app.contact_whatsapp', '+33600000001', true),
       set_config('app.contact_email', 'ecole@example.invalid', true);

insert into public.courses (id, title, visibility, created_by) values
  (%(pub)s, 'Matrix public course', 'public', %(admin)s),
  (%(priv)s, 'Matrix private course', 'private', %(admin)s);
insert into public.course_content (id, course_id, title, file_type, file_path, video_embed_url, order_index) values
  (%(pub_lesson)s, %(pub)s, 'Public lesson', 'video', null, 'https://player.example/embed/1', 0),
  (%(priv0)s, %(priv)s, 'Private lesson 0', 'pdf', 'matrix/priv0.pdf', null, 0),
  (%(priv1)s, %(priv)s, 'Private lesson 1', 'pdf', 'matrix/priv1.pdf', null, 1);
insert into public.course_unlock_schedules (course_id) values (%(priv)s);
insert into public.books (id, title, file_path, cover_url) values (%(book)s, 'Matrix book', 'matrix/book.pdf', 'matrix/book.jpg');

insert into public.course_access (user_id, course_id, granted_by) values (%(member)s, %(priv)s, %(admin)s);
insert into public.course_access (user_id, course_id, granted_by, created_at) values
  (%(veteran)s, %(priv)s, %(admin)s, now() - interval '10 days');
insert into public.user_book_access (user_id, book_id, granted_by) values (%(member)s, %(book)s, %(admin)s);
insert into public.user_content_progress (user_id, course_id, content_id) values (%(granted)s, %(priv)s, %(priv1)s);
insert into public.full_access_users (user_id, granted_by) values (%(fulluser)s, %(admin)s);
insert into public.content_views (user_id, content_id) values (%(member)s, %(priv0)s);

insert into public.content_comments (id, content_id, user_id, content) values (%(c_member)s, %(priv0)s, %(member)s, 'A question');
insert into public.comment_replies (id, comment_id, user_id, content) values (%(r_admin)s, %(c_member)s, %(admin)s, 'An answer');
insert into public.private_messages (id, sender_id, recipient_id, content) values
  (%(m_learner)s, %(learner)s, %(admin)s, 'Bonjour'),
  (%(m_admin)s, %(admin)s, %(learner)s, 'Bonjour, bienvenue');
insert into auth.sessions (id, user_id, created_at, updated_at, aal, user_agent, ip) values
  (%(s_learner)s, %(learner)s, now(), now(), 'aal1', 'Mozilla/5.0 (X11; Linux x86_64; rv:131.0) Gecko/20100101 Firefox/131.0', '192.0.2.1'),
  (%(s_member)s, %(member)s, now(), now(), 'aal1', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36', '192.0.2.2');

insert into storage.objects (bucket_id, name) values
  ('books', 'matrix/book.pdf'), ('course-content', 'matrix/priv0.pdf'),
  ('course-content', 'matrix/priv1.pdf'), ('covers', 'matrix/book.jpg');
