-- The dev inbox (like the Mailpit `supabase start` ships): auth mails are kept here when no
-- SMTP server is configured, readable at /inbox. A table, so every worker sees every mail.
create table if not exists auth.dev_inbox (
  id bigserial primary key,
  created_at timestamptz not null default now(),
  recipient text not null,
  subject text not null,
  kind text not null,
  otp text not null default '',
  link text not null default '',
  text_body text not null,
  html_body text not null
);
create index if not exists dev_inbox_recipient_idx on auth.dev_inbox (lower(recipient), id desc);
revoke all on auth.dev_inbox from anon, authenticated, service_role;
