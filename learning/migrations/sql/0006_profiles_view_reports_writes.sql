-- A PATCH on public.profiles answers with the row the trigger returns. The trigger used to
-- return NEW: a change to id, email or created_at (columns it does not write) was reported
-- as done while nothing changed. Those columns are now refused (42501, like a missing
-- column privilege; policies/profiles.sql grants UPDATE on the writable columns only), and
-- the row returned is the view's row as stored after the write.
create or replace function app_private.profiles_view_update() returns trigger
language plpgsql
set search_path = ''
as $$
begin
  if new.id is distinct from old.id then
    raise exception 'the id of a profile cannot be changed' using errcode = '42501';
  end if;
  if new.email is distinct from old.email then
    raise exception 'the email of a profile follows the account''s e-mail: change it through auth'
      using errcode = '42501';
  end if;
  if new.created_at is distinct from old.created_at then
    raise exception 'the creation date of a profile cannot be changed' using errcode = '42501';
  end if;
  update app_private.profiles set
    full_name = new.full_name,
    country = new.country,
    whatsapp_number = new.whatsapp_number,
    student_role = new.student_role,
    agent = new.agent,
    role = new.role,
    paid = new.paid,
    date_paid = new.date_paid,
    expire_date = new.expire_date
  where id = old.id;
  if not found then
    return null;
  end if;
  -- what the caller now reads, masking included
  select * into new from public.profiles v where v.id = old.id;
  return new;
end
$$;
