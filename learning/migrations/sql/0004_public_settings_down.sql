drop function if exists public.get_site_contact();
drop function if exists public.is_owner_account();
drop function if exists public.get_contact_admin();
drop function if exists app_private.app_setting(text);
