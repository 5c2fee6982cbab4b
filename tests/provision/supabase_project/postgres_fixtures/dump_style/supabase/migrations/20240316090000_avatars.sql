-- The avatars bucket and its policies, as a migration written by hand for Supabase would.
insert into storage.buckets (id, name, public)
  values ('avatars', 'avatars', true);

create policy "Avatar images are publicly accessible." on storage.objects
  for select using (bucket_id = 'avatars');

create policy "Users upload their own avatar." on storage.objects
  for insert to authenticated with check (bucket_id = 'avatars' and (select auth.uid()) = owner);

alter table public.accounts add column avatar_path text;
grant select (id, display_name, avatar_path) on public.accounts to anon;
