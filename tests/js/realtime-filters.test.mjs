// postgres_changes filters and column selection with the unmodified supabase-js: the operators
// current Realtime accepts (string filters and realtime-js's postgresChangesFilter builder,
// whose quoting the server reads back), `select`, and the system message of a refused filter.
//
// Each channel also holds a sentinel binding (`name=eq.END`): the END row is inserted last, so
// once its change arrives every earlier change of the channel has arrived too.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import pg from 'pg';
import { postgresChangesFilter } from '@supabase/realtime-js';
import { pgConfig, realtimeClient, subscribed, userToken, waitFor } from './support.mjs';

const suffix = crypto.randomBytes(4).toString('hex');
const TABLE = `rt_filters_${suffix}`;
const clients = [];
let db;

async function userClient(uid) {
  const supabase = await realtimeClient(userToken(uid));
  clients.push(supabase);
  return supabase;
}

// Subscribes `options` (and the sentinel) on a channel; `rows` resolves, once END has arrived,
// to the other `new` rows the binding received.
async function collect(supabase, options) {
  const rows = [];
  let done;
  const finished = new Promise((resolve) => { done = resolve; });
  const channel = supabase.channel(`f-${crypto.randomBytes(4).toString('hex')}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE, ...options }, (p) => rows.push(p.new))
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE, filter: 'name=eq.END' },
      () => done(rows.filter((r) => r.name !== 'END')));
  await subscribed(channel);
  return { rows: finished };
}

async function insert(owner, rows) {
  for (const r of rows) {
    await db.query(`insert into public.${TABLE} (owner, name, n, tag) values ($1, $2, $3, $4)`,
      [owner, r.name ?? null, r.n ?? null, r.tag ?? null]);
  }
  await db.query(`insert into public.${TABLE} (owner, name) values ($1, 'END')`, [owner]);
}

before(async () => {
  db = new pg.Client(pgConfig());
  await db.connect();
  await db.query(`create table public.${TABLE} (id bigserial primary key, owner uuid not null, name text, n int, tag text)`);
  await db.query(`alter table public.${TABLE} enable row level security`);
  await db.query(`create policy own_rows on public.${TABLE} for select to authenticated using (owner = auth.uid())`);
  await db.query(`alter publication supabase_realtime add table public.${TABLE}`);
});

after(async () => {
  for (const supabase of clients) await supabase.removeAllChannels();
  await db.query(`drop table if exists public.${TABLE}`);
  await db.end();
});

test('ilike folds case, not.is.null and comma-AND combine (the filter builder)', async () => {
  const uid = crypto.randomUUID();
  const supabase = await userClient(uid);
  const got = await collect(supabase, { filter: postgresChangesFilter().ilike('name', 'al%').not('tag', 'is', null) });
  await insert(uid, [{ name: 'ALPHA', tag: 'x' }, { name: 'alpine', tag: null }, { name: 'beta', tag: 'x' }, { name: 'alto', tag: 'y' }]);
  assert.deepEqual((await got.rows).map((r) => r.name), ['ALPHA', 'alto']);
});

test('in, match and isdistinct read values as the column type; a quoted value keeps its comma', async () => {
  const uid = crypto.randomUUID();
  const supabase = await userClient(uid);
  const inList = await collect(supabase, { filter: 'n=in.(2,10)' });
  const regex = await collect(supabase, { filter: 'name=not.match.^[a-z]+$' });
  const distinct = await collect(supabase, { filter: 'n=isdistinct.2' });
  const quoted = await collect(supabase, { filter: postgresChangesFilter().eq('name', 'a,b') });
  await insert(uid, [{ name: 'two', n: 2 }, { name: 'a,b', n: 10 }, { name: 'Ten', n: 9 }, { name: 'none' }]);
  assert.deepEqual((await inList.rows).map((r) => r.name), ['two', 'a,b']);
  assert.deepEqual((await regex.rows).map((r) => r.name), ['a,b', 'Ten']);
  assert.deepEqual((await distinct.rows).map((r) => r.name), ['a,b', 'Ten', 'none']);
  assert.deepEqual((await quoted.rows).map((r) => r.name), ['a,b']);
});

test('select: a change carries the listed columns and the primary key', async () => {
  const uid = crypto.randomUUID();
  const supabase = await userClient(uid);
  const got = await collect(supabase, { filter: 'n=gt.5', select: ['n'] });
  await insert(uid, [{ name: 'kept out', n: 7, tag: 't' }]);
  const [row] = await got.rows;
  assert.deepEqual(Object.keys(row).sort(), ['id', 'n']);
  assert.equal(row.n, 7);
});

test('a filter the column type refuses: the channel joins, and a system message says why', async () => {
  const supabase = await userClient(crypto.randomUUID());
  const messages = [];
  const channel = supabase.channel(`bad-${suffix}`)
    .on('system', {}, (p) => messages.push(p))
    .on('postgres_changes', { event: '*', schema: 'public', table: TABLE, filter: 'n=eq.abc' }, () => {});
  await subscribed(channel);
  const message = await waitFor(() => messages.find((m) => m.extension === 'postgres_changes'), 'the system message');
  assert.equal(message.status, 'error');
  assert.equal(message.message,
    'Unable to subscribe to changes with given parameters. An exception happened so please check your connect'
    + ` parameters: [event: *, schema: public, table: ${TABLE}, filters: [{"n", "eq", "abc", false}], select: nil].`
    + ' Exception: ERROR 22P02 (invalid_text_representation) invalid input syntax for type integer: "abc"');
});
