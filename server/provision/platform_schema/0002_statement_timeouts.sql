-- Per-role statement timeouts, as on Supabase: a request as anon may run 3 s, as an
-- authenticated user 8 s; service_role keeps the server's default (no limit). The server
-- applies a role's `statement_timeout` in each request's transaction (a role's settings
-- are not applied by SET ROLE itself). Change them as on Supabase:
--   alter role authenticated set statement_timeout = '15s'; notify pgrst, 'reload config';
alter role anon set statement_timeout = '3s';
alter role authenticated set statement_timeout = '8s';
