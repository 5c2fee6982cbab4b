-- storage.objects in the site's buckets: only admins upload, replace or delete.
-- books: a PDF is downloadable by admins, full-access users and users granted the book.
-- course-content: a lesson file follows its row: readable when the caller's RLS on
--   course_content shows a lesson with that file_path (a locked lesson's file is refused).
-- covers (public bucket): book and course covers, viewable by everyone.
-- storage.objects belongs to the storage service: skipped until it exists.
do $outer$
begin
  if to_regclass('storage.objects') is null then
    raise notice 'storage.objects does not exist yet: storage policies skipped';
    return;
  end if;

  execute 'alter table storage.objects enable row level security';

  execute 'drop policy if exists app_books_read on storage.objects';
  execute $p$
    create policy app_books_read on storage.objects for select to authenticated
      using (bucket_id = 'books' and (
        app_private.is_admin()
        or exists (select 1 from public.books b
                   where b.file_path = storage.objects.name
                     and app_private.has_book_access(auth.uid(), b.id))))
  $p$;

  execute 'drop policy if exists app_course_content_read on storage.objects';
  execute $p$
    create policy app_course_content_read on storage.objects for select to anon, authenticated
      using (bucket_id = 'course-content' and (
        app_private.is_admin()  -- also files not yet (or no longer) attached to a lesson
        or exists (select 1 from public.course_content c where c.file_path = storage.objects.name)))
  $p$;

  execute 'drop policy if exists app_covers_read on storage.objects';
  execute $p$
    create policy app_covers_read on storage.objects for select to anon, authenticated
      using (bucket_id = 'covers')
  $p$;

  execute 'drop policy if exists app_admin_insert on storage.objects';
  execute $p$
    create policy app_admin_insert on storage.objects for insert to authenticated
      with check (bucket_id in ('books', 'course-content', 'covers') and app_private.is_admin())
  $p$;

  execute 'drop policy if exists app_admin_update on storage.objects';
  execute $p$
    create policy app_admin_update on storage.objects for update to authenticated
      using (bucket_id in ('books', 'course-content', 'covers') and app_private.is_admin())
      with check (bucket_id in ('books', 'course-content', 'covers') and app_private.is_admin())
  $p$;

  execute 'drop policy if exists app_admin_delete on storage.objects';
  execute $p$
    create policy app_admin_delete on storage.objects for delete to authenticated
      using (bucket_id in ('books', 'course-content', 'covers') and app_private.is_admin())
  $p$;
end
$outer$;
