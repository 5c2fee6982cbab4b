-- books: the shelf is listed to everyone (visitors see "Connexion requise"); admins write.
-- Deleting a book cascades to its access rows and removes its PDF and cover (trigger).
alter table public.books enable row level security;

revoke all on public.books from anon, authenticated;
grant select on public.books to anon, authenticated;
grant insert, update, delete on public.books to authenticated;
grant all on public.books to service_role;

drop policy if exists books_select on public.books;
create policy books_select on public.books for select to anon, authenticated using (true);

drop policy if exists books_admin_insert on public.books;
create policy books_admin_insert on public.books for insert to authenticated
  with check (app_private.is_admin());

drop policy if exists books_admin_update on public.books;
create policy books_admin_update on public.books for update to authenticated
  using (app_private.is_admin()) with check (app_private.is_admin());

drop policy if exists books_admin_delete on public.books;
create policy books_admin_delete on public.books for delete to authenticated
  using (app_private.is_admin());
