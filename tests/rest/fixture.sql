-- The REST tests' own schema: FKs of every cardinality, views, functions, RLS on auth.uid().
create table public.fx_authors (
  id serial primary key,
  name text not null,
  bio text
);

create table public.fx_books (
  id serial primary key,
  title text not null,
  author_id int references public.fx_authors (id),
  editor_id int references public.fx_authors (id),
  pages int,
  price numeric(8, 2),
  published date,
  tags text[] not null default '{}',
  meta jsonb,
  summary text,
  available boolean not null default true,
  created_at timestamptz not null default now()
);

-- one-to-one: a unique FK
create table public.fx_isbns (
  book_id int primary key references public.fx_books (id) on delete cascade,
  code text not null unique
);

-- one-to-many
create table public.fx_chapters (
  id serial primary key,
  book_id int not null references public.fx_books (id) on delete cascade,
  title text not null,
  order_index int not null
);

-- many-to-many through a join table
create table public.fx_genres (
  id serial primary key,
  name text not null unique
);

create table public.fx_book_genres (
  book_id int references public.fx_books (id) on delete cascade,
  genre_id int references public.fx_genres (id) on delete cascade,
  primary key (book_id, genre_id)
);

create table public.fx_reservations (
  id serial primary key,
  room text not null,
  seats int4range
);

-- a self reference
create table public.fx_employees (
  id serial primary key,
  name text not null,
  manager_id int references public.fx_employees (id)
);

-- RLS on auth.uid(): everyone reads public notes, owners read and write their own.
create table public.fx_notes (
  id serial primary key,
  owner_id uuid not null default auth.uid(),
  body text not null,
  is_public boolean not null default false
);
alter table public.fx_notes enable row level security;
create policy notes_read on public.fx_notes for select using (is_public or owner_id = auth.uid());
create policy notes_insert on public.fx_notes for insert to authenticated with check (owner_id = auth.uid());
create policy notes_update on public.fx_notes for update to authenticated using (owner_id = auth.uid());
create policy notes_delete on public.fx_notes for delete to authenticated using (owner_id = auth.uid());

-- anon may read but not write books
create table public.fx_reviews (
  id serial primary key,
  book_id int not null references public.fx_books (id) on delete cascade,
  stars int not null check (stars between 1 and 5),
  body text
);
revoke insert, update, delete on public.fx_reviews from anon;

-- a view over books whose columns come from a table with foreign keys
create view public.fx_book_list as select id, title, author_id, pages from public.fx_books;

create function public.fx_add(a int, b int) returns int language sql immutable as $$ select a + b $$;

create function public.fx_books_by_author(author int) returns setof public.fx_books
language sql stable as $$ select * from public.fx_books where author_id = author order by id $$;

create function public.fx_book_titles(min_pages int default 0) returns table (id int, title text)
language sql stable as $$ select id, title from public.fx_books where coalesce(pages, 0) >= min_pages order by id $$;

create function public.fx_first_book() returns public.fx_books
language sql stable as $$ select * from public.fx_books order by id limit 1 $$;

create function public.fx_echo(payload json) returns json language sql immutable as $$ select payload $$;

create function public.fx_noop() returns void language sql volatile as $$ select $$;

create function public.fx_bump_pages(book int, by int default 1) returns int
language sql volatile as $$ update public.fx_books set pages = coalesce(pages, 0) + by where id = book returning pages $$;

create function public.fx_teapot() returns text language plpgsql stable as $$
begin
  perform set_config('response.status', '418', true);
  perform set_config('response.headers', '[{"X-Brew": "tea"}]', true);
  return 'short and stout';
end $$;

-- Any response status a function may set (response.status).
create function public.fx_status(code int) returns text language plpgsql stable as $$
begin
  perform set_config('response.status', code::text, true);
  return 'set';
end $$;

-- Any response header a function may set (response.headers), name and value as given.
create function public.fx_header(name text, value text) returns text language plpgsql stable as $$
begin
  perform set_config('response.headers', json_build_array(json_build_object(name, value))::text, true);
  return 'set';
end $$;

create function public.fx_fail(kind text) returns int language plpgsql stable as $$
begin
  if kind = 'raise' then raise exception 'plain failure' using hint = 'a hint', detail = 'some detail'; end if;
  if kind = 'pt' then raise sqlstate 'PT402' using message = 'payment required'; end if;
  if kind = 'pgrst' then
    raise sqlstate 'PGRST' using message = '{"code":"123","message":"custom","details":"d","hint":"h"}',
      detail = '{"status":409,"headers":{"X-Custom":"yes"}}';
  end if;
  return 0;
end $$;

create function public.fx_count_all_notes() returns bigint language sql stable security definer
set search_path = public as $$ select count(*) from public.fx_notes $$;

create function public.fx_count_visible_notes() returns bigint language sql stable as $$ select count(*) from public.fx_notes $$;

create function public.fx_whoami() returns json language sql stable as $$
  select json_build_object('role', current_user, 'uid', auth.uid())
$$;

create function public.fx_overloaded(a int) returns text language sql immutable as $$ select 'one' $$;
create function public.fx_overloaded(a int, b int) returns text language sql immutable as $$ select 'two' $$;

grant select, insert, update, delete on all tables in schema public to anon, authenticated, service_role;
revoke insert, update, delete on public.fx_reviews from anon;
grant usage, select on all sequences in schema public to anon, authenticated, service_role;

insert into public.fx_authors (name, bio) values ('Ursula', 'sf'), ('Terry', 'fantasy'), ('Nobody', null);
insert into public.fx_books (title, author_id, editor_id, pages, price, published, tags, meta, summary) values
  ('A Wizard of Earthsea', 1, 2, 183, 9.99, '1968-11-01', '{fantasy,classic}', '{"lang": "en", "awards": ["x"]}', 'a young wizard on an island of magic'),
  ('The Dispossessed', 1, null, 387, 12.50, '1974-05-01', '{sf,classic}', '{"lang": "en"}', 'an anarchist physicist between two worlds'),
  ('Mort', 2, 1, 243, 8.00, '1987-11-12', '{fantasy,humour}', '{"lang": "en"}', 'death takes an apprentice'),
  ('Guards! Guards!', 2, null, 288, null, '1989-11-01', '{fantasy}', null, 'a dragon summoned in the city');
insert into public.fx_isbns values (1, '978-0553383041'), (3, '978-0062225719');
insert into public.fx_chapters (book_id, title, order_index) values
  (1, 'Warriors in the Mist', 1), (1, 'The Shadow', 2), (1, 'The School for Wizards', 3), (3, 'One', 1), (3, 'Two', 2);
insert into public.fx_genres (name) values ('fantasy'), ('science fiction'), ('humour');
insert into public.fx_book_genres values (1, 1), (2, 2), (3, 1), (3, 3), (4, 1);
insert into public.fx_reservations (room, seats) values ('a', '[1,10)'), ('b', '[20,30)');
insert into public.fx_employees (name, manager_id) values ('boss', null), ('worker', 1);
insert into public.fx_reviews (book_id, stars, body) values (1, 5, 'great'), (1, 4, 'good'), (3, 3, 'ok');
