create or replace function app_private.profiles_view_update() returns trigger
language plpgsql
set search_path = ''
as $$
begin
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
  return new;
end
$$;
