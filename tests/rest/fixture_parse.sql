-- The query-string grammar end to end: names PostgREST's parser allows (blanks, dashes),
-- a JSON column, and a to-many relationship for embedded limits and offsets.
create table public.ps_models (
  id int primary key,
  "Just A Server Model" text,
  "field-with-dash" int,
  data jsonb
);
insert into public.ps_models values
  (1, 'Model 1191', 10, '{"a": [10, 20], "k": "x"}'),
  (2, 'Model 2200', 20, '{"a": [30], "k": "y"}'),
  (3, 'Model 3913', 30, null);

create table public.ps_parts (
  id int primary key,
  model_id int references public.ps_models (id),
  name text
);
insert into public.ps_parts values (1, 1, 'p1'), (2, 1, 'p2'), (3, 2, 'p3');

grant select on public.ps_models, public.ps_parts to anon, authenticated, service_role;
