-- Embedding: computed relationships and fields, to-many spreads, self references, views
-- over embed targets, a private schema shown through views.
create table public.em_users (
  id int primary key,
  username text not null
);

create table public.em_channels (
  id int primary key,
  slug text not null
);

create table public.em_channel_details (
  id int primary key references public.em_channels (id),
  description text
);

create table public.em_messages (
  id int primary key,
  message text not null,
  channel_id int not null references public.em_channels (id),
  sender_id int not null references public.em_users (id)
);

-- a view over the embed target: an FK-column embed (`sender_id(*)`) still means the table
create view public.em_users_view as select id, username from public.em_users;

-- computed relationships: a function of a row returning rows of another relation
create function public.em_all_messages(public.em_channels) returns setof public.em_messages
language sql stable as $$ select * from public.em_messages where channel_id = $1.id order by id $$;

create function public.em_last_message(public.em_channels) returns setof public.em_messages rows 1
language sql stable as $$ select * from public.em_messages where channel_id = $1.id order by id desc limit 1 $$;

create function public.em_channel(public.em_messages) returns public.em_channels
language sql stable as $$ select * from public.em_channels where id = $1.channel_id $$;

-- computed fields: a function of a row returning a scalar
create function public.em_shout(public.em_messages) returns text
language sql immutable as $$ select upper($1.message) $$;

create function public.em_length(public.em_messages) returns int
language sql immutable as $$ select length($1.message) $$;

-- a self reference: children and parent
create table public.em_collections (
  id int primary key,
  name text not null,
  parent_id int references public.em_collections (id)
);

-- tables in a schema that is not exposed, shown through views in public
create schema em_private;
create table em_private.authors (id int primary key, name text not null);
create table em_private.posts (id int primary key, title text not null, author_id int references em_private.authors);
create view public.em_authors as select id, name from em_private.authors;
create view public.em_posts as select id, title, author_id from em_private.posts;

grant usage on schema em_private to anon, authenticated, service_role;
grant select on all tables in schema em_private to anon, authenticated, service_role;
grant select on public.em_users, public.em_channels, public.em_channel_details, public.em_messages,
  public.em_users_view, public.em_collections, public.em_authors, public.em_posts to anon, authenticated, service_role;

insert into public.em_users values (1, 'ann'), (2, 'bob');
insert into public.em_channels values (1, 'general'), (2, 'random'), (3, 'empty');
insert into public.em_channel_details values (1, 'everything'), (2, 'anything');
insert into public.em_messages values
  (1, 'hello', 1, 1), (2, 'hi there', 1, 2), (3, 'welcome', 1, 1), (4, 'off topic', 2, 2);
insert into public.em_collections values (1, 'root', null), (2, 'left', 1), (3, 'right', 1), (4, 'leaf', 2);
insert into em_private.authors values (1, 'Ann'), (2, 'Ben');
insert into em_private.posts values (1, 'first', 1), (2, 'second', 1), (3, 'third', 2);
grant insert, update, delete on public.em_messages to service_role;
