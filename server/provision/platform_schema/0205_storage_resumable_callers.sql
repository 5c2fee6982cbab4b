-- Who created each resumable upload (server/storage/tus.py's caller key: `user:<sub>`, or
-- the role and client address of a caller without a subject), so that a caller's uploads
-- in progress are bounded (TUS_MAX_UPLOADS_PER_CALLER) and its HEAD is told apart from
-- anyone else's. Rows created before this file have none: they count for nobody.
alter table storage.resumable_uploads add column if not exists created_by text;

create index if not exists resumable_uploads_created_by_idx
  on storage.resumable_uploads (created_by) where completed_at is null;
