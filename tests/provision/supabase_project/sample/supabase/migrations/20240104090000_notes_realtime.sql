-- Clients follow new notes live; Realtime sends each subscriber only the rows its RLS lets it read.
alter publication supabase_realtime add table public.notes;
