create function app_private.is_contact_admin_email(profile_email text) returns boolean
language sql stable
set search_path = ''
as $$
  select profile_email is not null
     and lower(profile_email) = lower(nullif(current_setting('app.contact_admin_email', true), ''))
$$;

create or replace view public.profiles with (security_invoker = true) as
select
  p.id,
  case when app_private.sees_private(p.id) or app_private.is_contact_admin_email(p.email)
       then p.email end as email,
  p.full_name,
  case when app_private.sees_private(p.id) then p.country end as country,
  case when app_private.sees_private(p.id) then p.whatsapp_number end as whatsapp_number,
  p.student_role,
  p.agent,
  p.role,
  case when app_private.sees_private(p.id) then p.paid end as paid,
  case when app_private.sees_private(p.id) then p.date_paid end as date_paid,
  case when app_private.sees_private(p.id) then p.expire_date end as expire_date,
  p.created_at
from app_private.profiles p;
