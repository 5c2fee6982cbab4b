-- comment_replies: like comments, through the lesson of the replied comment.
alter table public.comment_replies enable row level security;

revoke all on public.comment_replies from anon, authenticated;
grant select on public.comment_replies to anon, authenticated;
grant insert, delete on public.comment_replies to authenticated;
grant all on public.comment_replies to service_role;

drop policy if exists comment_replies_select on public.comment_replies;
create policy comment_replies_select on public.comment_replies for select to anon, authenticated
  using (exists (select 1 from public.content_comments c where c.id = comment_id));  -- comments' policy decides

drop policy if exists comment_replies_insert on public.comment_replies;
create policy comment_replies_insert on public.comment_replies for insert to authenticated
  with check (user_id = auth.uid()
              and exists (select 1 from public.content_comments c
                          where c.id = comment_id and app_private.can_read_content(auth.uid(), c.content_id)));

drop policy if exists comment_replies_delete on public.comment_replies;
create policy comment_replies_delete on public.comment_replies for delete to authenticated
  using (user_id = auth.uid() or app_private.is_admin());
