-- The avatars bucket is declared in config.toml; these are its policies.
create policy "Avatar images are publicly accessible." on storage.objects
  for select using (bucket_id = 'avatars');

create policy "Users upload their own avatar." on storage.objects
  for insert to authenticated
  with check (bucket_id = 'avatars' and (storage.foldername(name))[1] = (select auth.uid()::text));

create policy "Users replace their own avatar." on storage.objects
  for update to authenticated
  using (bucket_id = 'avatars' and owner_id = (select auth.uid()::text));
