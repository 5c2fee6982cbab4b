// Broadcast from the database with the unmodified supabase-js: a trigger calling
// realtime.broadcast_changes reaches a private channel (setAuth, realtime.messages policies),
// realtime.send reaches public channels, and a private channel replays stored broadcasts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import pg from 'pg';
import { pgConfig, realtimeClient, subscribed, userToken, waitFor } from './support.mjs';

const suffix = crypto.randomBytes(4).toString('hex');
const TABLE = `rtdb_notes_${suffix}`;
let db;

const member = crypto.randomUUID();

before(async () => {
  db = new pg.Client(pgConfig());
  await db.connect();
  await db.query(`create table public.${TABLE} (id bigserial primary key, room text not null, body text)`);
  await db.query(`create function public.${TABLE}_broadcast() returns trigger language plpgsql security definer as $$
    begin
      perform realtime.broadcast_changes('notes:' || coalesce(new.room, old.room) || ':${suffix}', tg_op, tg_op,
                                         tg_table_name, tg_table_schema, new, old);
      return null;
    end $$`);
  await db.query(`create trigger ${TABLE}_broadcast after insert or update or delete on public.${TABLE}
                  for each row execute function public.${TABLE}_broadcast()`);
  await db.query(`create policy rtdb_read_${suffix} on realtime.messages for select to authenticated
                  using (extension = 'broadcast' and realtime.topic() like '%:${suffix}'
                         and auth.uid() = '${member}'::uuid)`);
});

after(async () => {
  await db.end();
});

test('a trigger calling broadcast_changes reaches a private channel whose policy lets the user read', async () => {
  const topic = `notes:lobby:${suffix}`;
  const supabase = await realtimeClient(userToken(member), '2.0.0');
  const seen = [];
  const channel = supabase.channel(topic, { config: { private: true } })
    .on('broadcast', { event: 'INSERT' }, (m) => seen.push(m))
    .on('broadcast', { event: 'UPDATE' }, (m) => seen.push(m));
  await subscribed(channel);
  const stranger = await realtimeClient(userToken(crypto.randomUUID()), '2.0.0');
  await assert.rejects(subscribed(stranger.channel(topic, { config: { private: true } })),
    new RegExp(`Unauthorized: You do not have permissions to read from this Channel topic: ${topic}`));

  const { rows: [row] } = await db.query(`insert into public.${TABLE} (room, body) values ('lobby', 'hi') returning id`);
  await db.query(`update public.${TABLE} set body = 'edited' where id = $1`, [row.id]);
  await waitFor(() => seen.length === 2, 'INSERT and UPDATE');

  const [insert, update] = seen;
  assert.equal(insert.type, 'broadcast');
  assert.equal(insert.event, 'INSERT');
  assert.deepEqual(insert.payload, {
    id: insert.meta.id, operation: 'INSERT', schema: 'public', table: TABLE,
    record: { id: Number(row.id), room: 'lobby', body: 'hi' }, old_record: null,
  });
  assert.deepEqual(insert.meta, { id: insert.payload.id });
  assert.equal(update.payload.old_record.body, 'hi');
  assert.equal(update.payload.record.body, 'edited');
  await supabase.removeAllChannels();
  await stranger.removeAllChannels();
});

test('realtime.send with private false reaches a public channel', async () => {
  const topic = `public-news-${suffix}`;
  const supabase = await realtimeClient(userToken(crypto.randomUUID()), '2.0.0');
  const seen = [];
  await subscribed(supabase.channel(topic).on('broadcast', { event: 'news' }, (m) => seen.push(m)));
  await db.query(`select realtime.send('{"headline": "hello"}', 'news', $1, false)`, [topic]);
  await waitFor(() => seen.length, 'the broadcast');
  assert.equal(seen[0].payload.headline, 'hello');
  assert.equal(seen[0].payload.id, seen[0].meta.id);
  await supabase.removeAllChannels();
});

test('a private channel replays the latest stored broadcasts, oldest first, then receives live ones', async () => {
  const topic = `notes:replay:${suffix}`;
  const since = Date.now() - 1000;
  for (const n of [1, 2, 3]) {
    await db.query(`select realtime.send($1::jsonb, 'note', $2)`, [JSON.stringify({ n }), topic]);
  }
  const supabase = await realtimeClient(userToken(member), '2.0.0');
  const seen = [];
  const channel = supabase.channel(topic, { config: { private: true, broadcast: { replay: { since, limit: 2 } } } })
    .on('broadcast', { event: 'note' }, (m) => seen.push(m));
  await subscribed(channel);
  await waitFor(() => seen.length === 2, 'the replayed messages');
  await db.query(`select realtime.send('{"n": 4}', 'note', $1)`, [topic]);
  await waitFor(() => seen.length === 3, 'the live message');
  assert.deepEqual(seen.map((m) => m.payload.n), [2, 3, 4]);
  assert.deepEqual(seen.map((m) => m.meta.replayed), [true, true, undefined]);
  assert.equal(seen[0].meta.id, seen[0].payload.id);
  assert.throws(() => supabase.channel(`public-${suffix}`, { config: { broadcast: { replay: { since } } } }),
    /tried to use replay on public channel/);
  await supabase.removeAllChannels();
});
