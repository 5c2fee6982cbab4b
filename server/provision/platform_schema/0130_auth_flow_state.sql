-- PKCE and external-provider flows, as GoTrue keeps them (internal/models/flow_state.go and its
-- migrations): one row per flow started by /authorize, or by a mailed link asked for with a
-- code_challenge. The row's id is the OAuth `state`; `auth_code` (PKCE only) is what the
-- redirect carries and POST /token?grant_type=pkce exchanges once, with the code verifier.
do $$ begin
  create type auth.code_challenge_method as enum ('s256', 'plain');
exception when duplicate_object then null;
end $$;

create table if not exists auth.flow_state (
  id uuid primary key,
  -- A deleted user's pending flows go with it.
  user_id uuid references auth.users (id) on delete cascade,
  auth_code text,
  code_challenge_method auth.code_challenge_method,
  code_challenge text,
  provider_type text not null,
  provider_access_token text,
  provider_refresh_token text,
  created_at timestamptz,
  updated_at timestamptz,
  authentication_method text not null,
  auth_code_issued_at timestamptz,
  invite_token text,
  referrer text,
  oauth_client_state_id uuid,
  linking_target_id uuid,
  email_optional boolean not null default false
);
create index if not exists idx_auth_code on auth.flow_state (auth_code);
create index if not exists idx_user_id_auth_method on auth.flow_state (user_id, authentication_method);
create index if not exists flow_state_created_at_idx on auth.flow_state (created_at desc);
comment on table auth.flow_state is 'stores metadata for pkce logins';

revoke all on auth.flow_state from anon, authenticated, service_role;
