alter table public.content_comments replica identity default;
alter table public.private_messages replica identity default;
