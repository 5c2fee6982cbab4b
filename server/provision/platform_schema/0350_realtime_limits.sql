-- Realtime's tenant-wide rate counters (joins, messages and presence events per second) and
-- its concurrent users, shared by every server process of the project.
--
-- Upstream keeps a counter per tenant that ticks every 5 s and averages its last 12 buckets
-- (server/realtime/limits.py). Here each process counts in memory and, at its tick, adds what
-- it counted to the bucket of the database clock's current 5 s, then reads the sums every
-- process wrote: one statement per process every 5 s, whatever the traffic.

create unlogged table if not exists realtime.rate_counts (
  key text not null,
  bucket bigint not null,  -- floor(epoch / tick seconds) of the database clock
  count bigint not null,
  primary key (key, bucket)
);

-- Sockets of a process holding a joined channel, as of its last tick.
alter table realtime.nodes add column if not exists users integer not null default 0;

revoke all on realtime.rate_counts from anon, authenticated, service_role;

-- Adds this process's counts, sets its users, drops buckets older than `keep_buckets`, and
-- answers {"bucket": now, "counts": {key: [sum of the last `window_buckets`, first bucket]},
-- "users": users of the other live processes}.
create or replace function realtime.rate_tick(
  node_id uuid, node_users integer, keys text[], counts bigint[],
  tick_seconds integer, window_buckets integer, keep_buckets integer, node_timeout_seconds integer)
returns jsonb
language plpgsql
set search_path = ''
as $$
declare
  now_bucket bigint := floor(extract(epoch from clock_timestamp()) / tick_seconds)::bigint;
begin
  insert into realtime.rate_counts as r (key, bucket, count)
  select k, now_bucket, c from unnest(keys, counts) as t(k, c) where c > 0
  on conflict (key, bucket) do update set count = r.count + excluded.count;
  delete from realtime.rate_counts where bucket <= now_bucket - keep_buckets;
  update realtime.nodes set users = node_users where id = node_id;
  return jsonb_build_object(
    'bucket', now_bucket,
    'counts', coalesce((
      select jsonb_object_agg(s.key, jsonb_build_array(s.total, s.first))
      from (select r.key, coalesce(sum(r.count) filter (where r.bucket > now_bucket - window_buckets), 0) as total,
                   min(r.bucket) as first
            from realtime.rate_counts r group by r.key) s), '{}'::jsonb),
    'users', (select coalesce(sum(n.users), 0) from realtime.nodes n
              where n.id <> node_id and n.seen_at > now() - make_interval(secs => node_timeout_seconds)));
end
$$;
revoke all on function realtime.rate_tick(uuid, integer, text[], bigint[], integer, integer, integer, integer) from public;
