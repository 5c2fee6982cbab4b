-- Profiles of the users, and their notes.
create extension if not exists "uuid-ossp" with schema extensions;
-- Lines `supabase db pull` writes for Supabase's own extensions: supalite has them not, and skips them.
create extension if not exists "pg_graphql" with schema "graphql";
create extension if not exists "supabase_vault" with schema "vault";

create table public.profiles (
  id uuid not null references auth.users on delete cascade,
  username text unique,
  avatar_url text,
  updated_at timestamp with time zone default now(),

  primary key (id),
  constraint username_length check (char_length(username) >= 3)
);

alter table public.profiles enable row level security;

create policy "Public profiles are viewable by everyone." on public.profiles
  for select using (true);

create policy "Users can insert their own profile." on public.profiles
  for insert with check ((select auth.uid()) = id);

create policy "Users can update own profile." on public.profiles
  for update using ((select auth.uid()) = id);

-- A profile for every new user (sign-up, anonymous, phone...).
create function public.handle_new_user()
returns trigger
language plpgsql
security definer set search_path = ''
as $$
begin
  insert into public.profiles (id, username)
  values (new.id, new.raw_user_meta_data ->> 'username');
  return new;
end;
$$;

create trigger on_auth_user_created
  after insert on auth.users
  for each row execute procedure public.handle_new_user();

create table public.notes (
  id uuid not null default extensions.uuid_generate_v4() primary key,
  owner_id uuid not null default auth.uid() references public.profiles (id) on delete cascade,
  title text not null,
  body text not null default '',
  is_public boolean not null default false,
  created_at timestamptz not null default now()
);

create index notes_owner_id_idx on public.notes (owner_id);

alter table public.notes enable row level security;

create policy "Public notes are readable by anyone" on public.notes
  for select to anon, authenticated
  using (is_public);

create policy "Owners read their notes" on public.notes
  for select to authenticated
  using ((select auth.uid()) = owner_id);

create policy "Owners write their notes" on public.notes
  for insert to authenticated
  with check ((select auth.uid()) = owner_id);

create policy "Owners update their notes" on public.notes
  for update to authenticated
  using ((select auth.uid()) = owner_id)
  with check ((select auth.uid()) = owner_id);

create policy "Owners delete their notes" on public.notes
  for delete to authenticated
  using ((select auth.uid()) = owner_id);
