-- Two users who can sign in (ada@example.com / ada-password, bob@example.com / bob-password),
-- and their notes: 60 public ones, one private each.
insert into auth.users (
  instance_id, id, aud, role, email, encrypted_password, email_confirmed_at,
  raw_app_meta_data, raw_user_meta_data, created_at, updated_at,
  confirmation_token, email_change, email_change_token_new, recovery_token
)
values
  ('00000000-0000-0000-0000-000000000000', 'ada00000-0000-4000-8000-000000000001', 'authenticated',
   'authenticated', 'ada@example.com', crypt('ada-password', gen_salt('bf')), now(),
   '{"provider": "email", "providers": ["email"]}', '{"username": "ada"}', now(), now(), '', '', '', ''),
  ('00000000-0000-0000-0000-000000000000', 'b0b00000-0000-4000-8000-000000000002', 'authenticated',
   'authenticated', 'bob@example.com', crypt('bob-password', gen_salt('bf')), now(),
   '{"provider": "email", "providers": ["email"]}', '{"username": "bob"}', now(), now(), '', '', '', '');

insert into auth.identities (id, user_id, provider_id, identity_data, provider, last_sign_in_at, created_at, updated_at)
select gen_random_uuid(), id, id::text, jsonb_build_object('sub', id::text, 'email', email), 'email', now(), now(), now()
from auth.users
where email in ('ada@example.com', 'bob@example.com');

insert into public.notes (owner_id, title, body, is_public)
values
  ('ada00000-0000-4000-8000-000000000001', 'Welcome to the sample', 'Every note here is seeded.', true),
  ('b0b00000-0000-4000-8000-000000000002', 'Gardening tips', 'Water in the morning.', true),
  ('ada00000-0000-4000-8000-000000000001', 'Garden plan for spring', 'Tomatoes by the wall.', false),
  ('b0b00000-0000-4000-8000-000000000002', 'Bob''s secret recipe', 'Two spoons of honey.', false);

insert into public.notes (owner_id, title, is_public)
select case when i % 2 = 0 then 'ada00000-0000-4000-8000-000000000001'::uuid
            else 'b0b00000-0000-4000-8000-000000000002'::uuid end,
       format('Public note %s', lpad(i::text, 2, '0')),
       true
from generate_series(1, 58) as i;
