-- Search, totals and a public listing of the notes.
create extension if not exists pg_trgm with schema extensions;

create index notes_title_trgm_idx on public.notes using gin (title extensions.gin_trgm_ops);

-- Notes whose title looks like the term; RLS still applies (security invoker).
create or replace function public.search_notes(term text)
returns setof public.notes
language sql
stable
set search_path = ''
as $$
  select *
  from public.notes
  where extensions.similarity(title, term) > 0.2
  order by extensions.similarity(title, term) desc, created_at
$$;

-- Counts every note, private ones included, without revealing any: security definer.
create or replace function public.note_totals()
returns json
language sql
stable
security definer
set search_path = ''
as $$
  select json_build_object(
    'public', count(*) filter (where is_public),
    'private', count(*) filter (where not is_public)
  )
  from public.notes
$$;

revoke execute on function public.note_totals() from public;
grant execute on function public.note_totals() to anon, authenticated;

create view public.public_notes
with (security_invoker = true)
as
  select n.id, n.title, n.created_at, p.username as author
  from public.notes n
  join public.profiles p on p.id = n.owner_id
  where n.is_public;
