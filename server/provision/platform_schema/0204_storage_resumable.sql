-- Resumable (TUS) uploads in progress: one row per upload, seen by every server process,
-- so any replica can answer the HEAD or PATCH of an upload another one created. The bytes
-- live in the backend (a part file, or an S3 multipart upload); `backend_state` is what
-- the backend needs to append to them (S3: the multipart upload id and its parts).
-- A PATCH holds the upload through a lease (`lock_token` until `lock_expires`), renewed
-- while it reads, so a crashed process never keeps an upload locked for longer than that.
-- Rows past `expires_at` are swept with their bytes (server/storage/tus_store.py).
-- Out of reach of the API roles: no grant, and RLS on with no policy.
create table if not exists storage.resumable_uploads (
  id text primary key,              -- "<bucket>/<name>/<version>", base64url in the upload URL
  bucket_id text not null,
  name text not null,
  version text not null,
  scratch text not null unique,     -- names the upload's scratch bytes in the backend
  upload_length bigint not null check (upload_length >= 0),
  upload_offset bigint not null default 0 check (upload_offset >= 0 and upload_offset <= upload_length),
  metadata jsonb not null default '[]',  -- Upload-Metadata as sent: [[key, value or null], ...] in order
  content_type text not null,
  cache_control text not null,
  backend_state jsonb not null default '{}',
  lock_token uuid,
  lock_expires timestamptz,
  completed_at timestamptz,         -- set once the object row is written
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);

create index if not exists resumable_uploads_expires_idx on storage.resumable_uploads (expires_at);

alter table storage.resumable_uploads enable row level security;
revoke all on storage.resumable_uploads from public, anon, authenticated, service_role;
