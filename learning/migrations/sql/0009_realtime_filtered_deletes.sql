-- The site's live lists subscribe with filters (comments: content_id=eq.<lesson>, messages:
-- recipient_id / sender_id), and Realtime evaluates a DELETE's filter on the columns its
-- replica identity carries: only the primary key by default, so a filtered subscriber would
-- never see a comment or a message disappear. With the full row as replica identity the
-- filter can match; subscribers still receive only the primary key in old_record (RLS is on).
alter table public.content_comments replica identity full;
alter table public.private_messages replica identity full;
