-- Learners find their messaging counterpart with get_contact_admin() (0004), so no account's
-- e-mail needs to be readable by others any more: only the user and admins see it.
create or replace view public.profiles with (security_invoker = true) as
select
  p.id,
  case when app_private.sees_private(p.id) then p.email end as email,
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

drop function if exists app_private.is_contact_admin_email(text);
