-- The auth rate limits' counters (server/auth/ratelimit.py), shared by every worker of every
-- replica. Unlogged: nothing is written to the WAL for them, and a crash empties the table,
-- which only forgets some counts. One row per bucket and key (a client IP, an e-mail address,
-- '*' for the whole server's mails and SMS): a token bucket's tokens left at `at`, or a fixed
-- window's count; `expires_at` is when the row stops counting (the bucket full again, the
-- window ended), so rows past it are deleted by the servers' sweeps. Times are seconds since
-- the epoch. `allowed` is the last check's answer, which the upsert returns.
create unlogged table if not exists auth.rate_limits (
  bucket text not null,
  key text not null,
  tokens float8 not null,
  at float8 not null,
  expires_at float8 not null,
  allowed boolean not null,
  primary key (bucket, key)
);
create index if not exists rate_limits_expires_at_idx on auth.rate_limits (expires_at);
-- The platform's own bookkeeping: no API role reads or writes it.
revoke all on auth.rate_limits from anon, authenticated, service_role;
