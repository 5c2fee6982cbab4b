// Realtime with the unmodified supabase-js: postgres_changes under RLS, broadcast,
// presence, private channels, token refresh, both protocol versions.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import pg from 'pg';
import { env, pgConfig, realtimeClient, subscribed, userToken, waitFor } from './support.mjs';

const suffix = crypto.randomBytes(4).toString('hex');
const TABLE = `rt_notes_${suffix}`;
let db;

before(async () => {
  db = new pg.Client(pgConfig());
  await db.connect();
  await db.query(`create table public.${TABLE} (id bigserial primary key, owner uuid not null, room text, body text)`);
  await db.query(`alter table public.${TABLE} enable row level security`);
  await db.query(`create policy own_rows on public.${TABLE} for select to authenticated using (owner = auth.uid())`);
  await db.query(`alter publication supabase_realtime add table public.${TABLE}`);
  await db.query(`create policy rt_private_read_${suffix} on realtime.messages for select to authenticated
                  using (realtime.topic() = 'private-ok-${suffix}')`);
  await db.query(`create policy rt_private_write_${suffix} on realtime.messages for insert to authenticated
                  with check (realtime.topic() = 'private-ok-${suffix}')`);
});

after(async () => {
  await db.end();
});

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`postgres_changes: insert, update, delete reach the row's owner (vsn ${vsn})`, async () => {
    const uid = crypto.randomUUID();
    const supabase = await realtimeClient(userToken(uid), vsn);
    const events = [];
    const channel = supabase.channel(`changes-${vsn}-${suffix}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: TABLE }, (p) => events.push(p));
    await subscribed(channel);
    const { rows: [row] } = await db.query(`insert into public.${TABLE} (owner, room, body) values ($1, 'a', 'hello') returning id`, [uid]);
    await waitFor(() => events.find((e) => e.eventType === 'INSERT'), 'INSERT');
    await db.query(`update public.${TABLE} set body = 'edited' where id = $1`, [row.id]);
    await waitFor(() => events.find((e) => e.eventType === 'UPDATE'), 'UPDATE');
    await db.query(`delete from public.${TABLE} where id = $1`, [row.id]);
    await waitFor(() => events.find((e) => e.eventType === 'DELETE'), 'DELETE');

    const [insert, update, del] = events;
    assert.equal(insert.schema, 'public');
    assert.equal(insert.table, TABLE);
    assert.deepEqual(insert.new, { id: Number(row.id), owner: uid, room: 'a', body: 'hello' });
    assert.deepEqual(insert.old, {});
    assert.match(insert.commit_timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.equal(update.new.body, 'edited');
    assert.deepEqual(del.old, { id: Number(row.id) }); // under RLS, a delete carries only the primary key
    assert.deepEqual(del.new, {});
    await supabase.removeAllChannels();
  });
}

test('postgres_changes with a filter and an event type', async () => {
  const uid = crypto.randomUUID();
  const supabase = await realtimeClient(userToken(uid));
  const events = [];
  const channel = supabase.channel(`filtered-${suffix}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE, filter: 'room=eq.kitchen' }, (p) => events.push(p));
  await subscribed(channel);
  await db.query(`insert into public.${TABLE} (owner, room, body) values ($1, 'garden', 'no'), ($1, 'kitchen', 'yes')`, [uid]);
  await waitFor(() => events.length >= 1, 'filtered insert');
  await db.query(`update public.${TABLE} set body = 'changed' where owner = $1`, [uid]);
  await db.query(`insert into public.${TABLE} (owner, room, body) values ($1, 'kitchen', 'again')`, [uid]);
  await waitFor(() => events.length >= 2, 'second filtered insert');
  assert.deepEqual(events.map((e) => [e.eventType, e.new.body]), [['INSERT', 'yes'], ['INSERT', 'again']]);
  await supabase.removeAllChannels();
});

test('two users on one table each receive only the rows their policies allow', async () => {
  const alice = crypto.randomUUID();
  const bob = crypto.randomUUID();
  const got = { alice: [], bob: [] };
  const clients = [];
  for (const [name, uid] of [['alice', alice], ['bob', bob]]) {
    const supabase = await realtimeClient(userToken(uid));
    clients.push(supabase);
    await subscribed(supabase.channel(`rls-${name}-${suffix}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (p) => got[name].push(p.new)));
  }
  await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'for alice'), ($2, 'for bob'), ($1, 'alice 2')`, [alice, bob]);
  // Changes arrive in commit order: once each user has a marker committed later, nothing of the
  // first transaction is still on its way.
  await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'end'), ($2, 'end')`, [alice, bob]);
  await waitFor(() => got.alice.at(-1)?.body === 'end' && got.bob.at(-1)?.body === 'end', 'both markers');
  assert.deepEqual(got.alice.map((r) => r.body).sort(), ['alice 2', 'end', 'for alice']);
  assert.deepEqual(got.bob.map((r) => r.body), ['for bob', 'end']);
  for (const c of clients) await c.removeAllChannels();
});

test('insert, update and delete of one row arrive as three events each, in commit order, within one transaction or in quick succession', async () => {
  const uid = crypto.randomUUID();
  const supabase = await realtimeClient(userToken(uid));
  const events = [];
  await subscribed(supabase.channel(`burst-${suffix}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: TABLE }, (p) => events.push(p)));
  const burst = async () => {
    const { rows: [row] } = await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'draft') returning id`, [uid]);
    await db.query(`update public.${TABLE} set body = 'final' where id = $1`, [row.id]);
    await db.query(`delete from public.${TABLE} where id = $1`, [row.id]);
    return Number(row.id);
  };
  await db.query('begin');
  const inOneTransaction = await burst();
  await db.query('commit');
  const ids = [inOneTransaction, await burst()];
  // A marker committed last: when it arrives, every earlier event has (commit order).
  await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'end')`, [uid]);
  await waitFor(() => events.at(-1)?.new.body === 'end', 'the marker');
  events.pop();
  const expected = ids.flatMap((id) => [['INSERT', 'draft', {}], ['UPDATE', 'final', { id }], ['DELETE', undefined, { id }]]);
  assert.deepEqual(events.map((e) => [e.eventType, e.new.body, e.old]), expected);
  await supabase.removeAllChannels();
});

test('transactions arrive in the order they commit, not the order they started', async () => {
  const uid = crypto.randomUUID();
  const supabase = await realtimeClient(userToken(uid));
  const events = [];
  await subscribed(supabase.channel(`order-${suffix}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (p) => events.push(p.new.body)));
  const early = new pg.Client(pgConfig());
  await early.connect();
  try {
    await early.query('begin');
    await early.query(`insert into public.${TABLE} (owner, body) values ($1, 'started first')`, [uid]);
    await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'committed first')`, [uid]);
    await waitFor(() => events.length >= 1, 'the change committed while another transaction is open');
    await early.query('commit');
  } finally {
    await early.end();
  }
  await waitFor(() => events.length >= 2, 'the late commit');
  assert.deepEqual(events, ['committed first', 'started first']);
  await supabase.removeAllChannels();
});

test("another user receives none of a row's insert, update and delete", async () => {
  const owner = crypto.randomUUID();
  const other = crypto.randomUUID();
  const seen = { owner: [], other: [] };
  const clients = [];
  for (const [name, uid] of [['owner', owner], ['other', other]]) {
    const supabase = await realtimeClient(userToken(uid));
    clients.push(supabase);
    await subscribed(supabase.channel(`hidden-${name}-${suffix}`)
      .on('postgres_changes', { event: '*', schema: 'public', table: TABLE }, (p) => seen[name].push(p.eventType)));
  }
  const { rows: [row] } = await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'private') returning id`, [owner]);
  await db.query(`update public.${TABLE} set body = 'still private' where id = $1`, [row.id]);
  await db.query(`delete from public.${TABLE} where id = $1`, [row.id]);
  // The other user's own row, committed last: when it arrives, any leak would have (commit order).
  await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'marker')`, [other]);
  await waitFor(() => seen.owner.length >= 3 && seen.other.length >= 1, 'both users');
  assert.deepEqual(seen.owner, ['INSERT', 'UPDATE', 'DELETE']);
  assert.deepEqual(seen.other, ['INSERT']); // its own marker only
  for (const c of clients) await c.removeAllChannels();
});

for (const vsn of ['1.0.0', '2.0.0']) {
  test(`broadcast with self and ack (vsn ${vsn})`, async () => {
    const a = await realtimeClient(null, vsn);
    const b = await realtimeClient(null, vsn);
    const topic = `room-${vsn}-${suffix}`;
    const seenA = [];
    const seenB = [];
    const chA = a.channel(topic, { config: { broadcast: { self: true, ack: true } } })
      .on('broadcast', { event: 'cursor' }, (m) => seenA.push(m));
    const chB = b.channel(topic).on('broadcast', { event: 'cursor' }, (m) => seenB.push(m));
    await subscribed(chA);
    await subscribed(chB);
    assert.equal(await chA.send({ type: 'broadcast', event: 'cursor', payload: { x: 1 } }), 'ok');
    await waitFor(() => seenA.length && seenB.length, 'broadcast');
    assert.deepEqual(seenB[0].payload, { x: 1 });
    assert.equal(seenB[0].event, 'cursor');
    assert.deepEqual(seenA[0].payload, { x: 1 });
    // Without self, the sender does not get its own message.
    await chB.send({ type: 'broadcast', event: 'cursor', payload: { x: 2 } });
    await waitFor(() => seenA.length === 2, 'second broadcast');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(seenB.length, 1);
    // The REST endpoint reaches the same subscribers.
    const res = await fetch(`${env.url}/realtime/v1/api/broadcast`, {
      method: 'POST',
      headers: { apikey: env.anonKey, 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ topic, event: 'cursor', payload: { x: 3 } }] }),
    });
    assert.equal(res.status, 202);
    await waitFor(() => seenB.length === 2, 'REST broadcast');
    assert.deepEqual(seenB[1].payload, { x: 3 });
    await a.removeAllChannels();
    await b.removeAllChannels();
  });
}

test('presence: join and leave across two clients', async () => {
  const a = await realtimeClient();
  const b = await realtimeClient();
  const topic = `lobby-${suffix}`;
  const joins = [];
  const leaves = [];
  const chA = a.channel(topic, { config: { presence: { key: 'alice' } } })
    .on('presence', { event: 'join' }, ({ key }) => joins.push(key))
    .on('presence', { event: 'leave' }, ({ key }) => leaves.push(key));
  await subscribed(chA);
  await chA.track({ name: 'Alice' });
  const chB = b.channel(topic, { config: { presence: { key: 'bob' } } }).on('presence', { event: 'sync' }, () => {});
  await subscribed(chB);
  assert.equal(await chB.track({ name: 'Bob' }), 'ok');
  await waitFor(() => joins.includes('bob'), 'bob joins');
  await waitFor(() => chB.presenceState().alice, 'bob sees alice');
  assert.equal(chA.presenceState().bob[0].name, 'Bob');
  await chB.untrack();
  await waitFor(() => leaves.includes('bob'), 'bob leaves');
  assert.equal(chA.presenceState().bob, undefined);
  await a.removeAllChannels();
  await b.removeAllChannels();
});

test('a private channel is refused without a policy and accepted with one', async () => {
  const supabase = await realtimeClient(userToken(crypto.randomUUID()));
  const refused = supabase.channel(`private-no-${suffix}`, { config: { private: true } });
  await assert.rejects(subscribed(refused), /Unauthorized: You do not have permissions to read from this Channel topic/);
  const accepted = supabase.channel(`private-ok-${suffix}`, { config: { private: true, broadcast: { self: true, ack: true } } });
  const seen = [];
  accepted.on('broadcast', { event: 'ping' }, (m) => seen.push(m.payload));
  await subscribed(accepted);
  assert.equal(await accepted.send({ type: 'broadcast', event: 'ping', payload: { ok: true } }), 'ok');
  await waitFor(() => seen.length, 'private broadcast');
  await supabase.removeAllChannels();
});

test('a refreshed token keeps the channel; an expired one closes it', async () => {
  const uid = crypto.randomUUID();
  const tokens = { current: userToken(uid) };
  const supabase = await realtimeClient(() => tokens.current);
  const events = [];
  const system = [];
  const statuses = [];
  const channel = supabase.channel(`refresh-${suffix}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (p) => events.push(p))
    .on('system', {}, (p) => system.push(p));
  await new Promise((resolve) => channel.subscribe((s) => { statuses.push(s); if (s === 'SUBSCRIBED') resolve(); }));
  tokens.current = userToken(uid, 7200);
  await supabase.realtime.setAuth();
  await db.query(`insert into public.${TABLE} (owner, body) values ($1, 'after refresh')`, [uid]);
  await waitFor(() => events.length, 'change after refresh');
  assert.equal(channel.state, 'joined');
  tokens.current = userToken(uid, -10);
  await supabase.realtime.setAuth();
  await waitFor(() => system.find((p) => p.status === 'error'), 'system error');
  assert.match(system.find((p) => p.status === 'error').message, /^Token has expired \d+ seconds ago$/);
  await waitFor(() => statuses.includes('CLOSED'), 'channel closed');
  await supabase.removeAllChannels();
});
