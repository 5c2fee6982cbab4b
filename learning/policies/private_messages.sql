-- private_messages: a non-admin writes only to admins, an admin to non-admins, always as
-- sender; each side reads its conversations (admins read all); only the recipient marks
-- is_read (the only updatable column); a non-admin deletes only what they sent (never an
-- admin's message), admins delete any.
alter table public.private_messages enable row level security;

revoke all on public.private_messages from anon, authenticated;
grant select, insert, delete on public.private_messages to authenticated;
grant update (is_read) on public.private_messages to authenticated;
grant all on public.private_messages to service_role;

drop policy if exists private_messages_select on public.private_messages;
create policy private_messages_select on public.private_messages for select to authenticated
  using (sender_id = auth.uid() or recipient_id = auth.uid() or app_private.is_admin());

drop policy if exists private_messages_insert on public.private_messages;
create policy private_messages_insert on public.private_messages for insert to authenticated
  with check (sender_id = auth.uid()
              and app_private.is_admin(recipient_id) <> app_private.is_admin(auth.uid()));

drop policy if exists private_messages_mark_read on public.private_messages;
create policy private_messages_mark_read on public.private_messages for update to authenticated
  using (recipient_id = auth.uid()) with check (recipient_id = auth.uid());

drop policy if exists private_messages_delete on public.private_messages;
create policy private_messages_delete on public.private_messages for delete to authenticated
  using (sender_id = auth.uid() or app_private.is_admin());
