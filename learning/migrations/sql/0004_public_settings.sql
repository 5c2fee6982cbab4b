-- App settings (SUPALITE_APP_<NAME> -> database setting app.<name>) exposed as RPCs.
-- The accounts are named by e-mail in the configuration; the answers never carry one.

-- An app setting, '' and unset alike read as null.
create function app_private.app_setting(name text) returns text
language sql stable
set search_path = ''
as $$
  select nullif(btrim(current_setting('app.' || name, true)), '')
$$;

-- The designated administrator (the messaging counterpart of learners): any signed-in user
-- (and the service role) gets its id and name; nothing when it is not configured or not an
-- admin. Visitors may not call it.
create function public.get_contact_admin() returns table (id uuid, full_name text)
language sql stable security definer
set search_path = ''
as $$
  select p.id, p.full_name
  from app_private.profiles p
  where (auth.uid() is not null or app_private.caller_is_privileged())
    and p.role = 'admin'
    and lower(p.email) = lower(app_private.app_setting('contact_admin_email'))
  limit 1
$$;

-- Is the caller the owner account (app.owner_email)? false for visitors and when unset.
create function public.is_owner_account() returns boolean
language sql stable security definer
set search_path = ''
as $$
  select coalesce((
    select lower(p.email) = lower(app_private.app_setting('owner_email'))
    from app_private.profiles p
    where p.id = auth.uid()), false)
$$;

-- How to reach the school (footer, contact page, contact dialog): public, visitors included.
create function public.get_site_contact() returns json
language sql stable
set search_path = ''
as $$
  select json_build_object(
    'whatsapp_number', app_private.app_setting('contact_whatsapp'),
    'email', app_private.app_setting('contact_email'))
$$;

-- The contact admin is for signed-in users only (a visitor's call is refused with 42501).
revoke execute on function public.get_contact_admin() from public, anon;
grant execute on function public.get_contact_admin() to authenticated, service_role;
grant execute on function public.is_owner_account(), public.get_site_contact() to anon, authenticated, service_role;
grant execute on function app_private.app_setting(text) to anon, authenticated, service_role;
