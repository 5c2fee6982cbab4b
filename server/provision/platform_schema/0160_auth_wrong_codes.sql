-- Wrong one-time codes (server/auth/wrong_codes.py) and used TOTP steps, which GoTrue does not
-- keep. Tables of their own, beside GoTrue's: its tables keep their shape, so that a dump of
-- them still loads into GoTrue's. Every worker of every replica reads and counts here, under
-- the row locks of the request's transaction.

-- Tries at a user's pending code: one row per user and token column of auth.users
-- (confirmation_token, recovery_token, email_change_token_new, phone_change_token,
-- reauthentication_token). The code is the one sent at `sent_at` (the column's *_sent_at):
-- a new code starts a new count.
create table if not exists auth.one_time_code_tries (
  user_id uuid not null references auth.users (id) on delete cascade,
  token_column text not null,
  sent_at timestamptz,
  tries integer not null,
  primary key (user_id, token_column)
);

-- Wrong answers to an MFA challenge, which dies at the limit.
create table if not exists auth.mfa_challenge_failures (
  challenge_id uuid primary key references auth.mfa_challenges (id) on delete cascade,
  failures integer not null
);

-- A TOTP factor's last accepted time step (RFC 6238 section 5.2: a code serves once), and its
-- wrong codes across challenges, counted in a window ending at `failures_until`.
create table if not exists auth.mfa_totp_guards (
  factor_id uuid primary key references auth.mfa_factors (id) on delete cascade,
  last_totp_step bigint,
  failures integer not null default 0,
  failures_until timestamptz
);

revoke all on auth.one_time_code_tries, auth.mfa_challenge_failures, auth.mfa_totp_guards
  from anon, authenticated, service_role;
