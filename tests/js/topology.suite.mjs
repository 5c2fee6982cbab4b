// The unmodified supabase-js against the production topology (tests/topology): nginx in front
// of two replicas of two workers each, PgBouncer, S3. Every response names the replica that
// answered (the harness's nginx adds X-Upstream), so each test shows that the two sides of
// what it checks ran on different replicas. nginx takes the replicas in turn.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import pg from 'pg';
import { createClient } from '@supabase/supabase-js';
import { env, pgConfig, subscribed, uniqueEmail, waitFor } from './support.mjs';

const ACCESS_LOG = process.env.TOPOLOGY_ACCESS_LOG;
const SIGN_IN_LIMIT = Number(process.env.TOPOLOGY_SIGN_IN_LIMIT);
const TABLE = `topo_notes_${crypto.randomBytes(4).toString('hex')}`;
const PASSWORD = 'topology-password-1';
let db;

/** A client address of its own for each test (nginx's X-Forwarded-For carries it to the
 * replicas, which trust nginx): each test's auth rate limits count apart. */
function clientAddress() {
  return `10.${crypto.randomInt(256)}.${crypto.randomInt(256)}.${1 + crypto.randomInt(254)}`;
}

/** supabase-js's fetch, recording which replica answered each request. */
function tracked(address = clientAddress()) {
  const served = [];
  const trackedFetch = async (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('X-Forwarded-For', address);
    const response = await fetch(input, { ...init, headers });
    served.push({ url: String(input), status: response.status, replica: response.headers.get('x-upstream') });
    return response;
  };
  return { served, fetch: trackedFetch };
}

function userClient(trackedFetch) {
  return createClient(env.url, env.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false }, global: { fetch: trackedFetch } });
}

async function signedUp(supabase) {
  const email = uniqueEmail('topology');
  const { data, error } = await supabase.auth.signUp({ email, password: PASSWORD });
  assert.equal(error, null);
  assert.ok(data.session, 'sign-ups are confirmed without a mail (compose settings)');
  return { email, user: data.user };
}

/** The replicas (upstream addresses) of nginx's access log lines for `path` with `status`. */
function loggedReplicas(path, status) {
  return fs.readFileSync(ACCESS_LOG, 'utf8').split('\n')
    .map((line) => line.split(' '))
    .filter(([code, , , uri]) => code === String(status) && uri === path)
    .map(([, replica]) => replica);
}

before(async () => {
  db = new pg.Client(pgConfig());
  await db.connect();
  await db.query(`create table public.${TABLE} (id bigint generated always as identity primary key,
                  owner uuid not null default auth.uid(), body text not null)`);
  await db.query(`alter table public.${TABLE} enable row level security`);
  await db.query(`create policy own_read on public.${TABLE} for select to authenticated using (owner = auth.uid())`);
  await db.query(`create policy own_write on public.${TABLE} for insert to authenticated with check (owner = auth.uid())`);
  await db.query(`grant select, insert on public.${TABLE} to authenticated`);
  await db.query(`alter publication supabase_realtime add table public.${TABLE}`);
  // Every worker of both replicas reloads its schema cache on the DDL's notification.
  const probe = createClient(env.url, env.serviceKey, { auth: { persistSession: false } });
  const deadline = Date.now() + 20000;
  for (let inARow = 0; inARow < 8;) {
    const { error } = await probe.from(TABLE).select('id').limit(1);
    inARow = error ? 0 : inARow + 1;
    assert.ok(Date.now() < deadline, `the new table is not on every worker: ${error?.message}`);
    if (error) await new Promise((resolve) => setTimeout(resolve, 50));
  }
});

after(async () => {
  await db.query(`drop table if exists public.${TABLE}`);
  await db.end();
});

test('a session signed in on one replica refreshes on the other', async () => {
  const { served, fetch } = tracked();
  const supabase = userClient(fetch);
  const { email, user } = await signedUp(supabase);
  const signIn = await supabase.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(signIn.error, null);
  const signedInOn = served.at(-1).replica;
  let refreshedOn = signedInOn;
  for (let attempt = 0; attempt < 4 && refreshedOn === signedInOn; attempt++) {
    const { data, error } = await supabase.auth.refreshSession();
    assert.equal(error, null);
    assert.equal(data.user.id, user.id);
    refreshedOn = served.at(-1).replica;
  }
  assert.notEqual(refreshedOn, signedInOn, 'nginx sends the next request to the other replica');
  // The refreshed session works on both replicas.
  for (let i = 0; i < 2; i++) {
    const { data, error } = await supabase.auth.getUser();
    assert.equal(error, null);
    assert.equal(data.user.email, email);
  }
  assert.equal(new Set(served.slice(-2).map((s) => s.replica)).size, 2);
});

test('a change written through either replica reaches a realtime subscriber', async () => {
  const { served, fetch } = tracked();
  const supabase = userClient(fetch);
  await signedUp(supabase);
  const events = [];
  const channel = supabase.channel(`changes-${TABLE}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, (payload) => events.push(payload));
  await subscribed(channel);
  const writers = new Set();
  for (let i = 0; writers.size < 2 && i < 4; i++) {
    const { error } = await supabase.from(TABLE).insert({ body: `note ${i}` });
    assert.equal(error, null);
    writers.add(served.at(-1).replica);
  }
  assert.equal(writers.size, 2, 'inserts went through both replicas: one of them is not the socket\'s');
  const written = served.filter((s) => s.url.includes(`/rest/v1/${TABLE}`)).length;
  await waitFor(() => events.length === written, `${written} INSERT events`);
  assert.deepEqual(events.map((e) => e.new.body).sort(), [...Array(written).keys()].map((i) => `note ${i}`));
  await supabase.removeAllChannels();
});

test('presence and broadcast between clients on different replicas', async () => {
  fs.truncateSync(ACCESS_LOG, 0); // nginx appends: only this test's sockets are logged below
  const topic = `room-${crypto.randomBytes(4).toString('hex')}`;
  const make = () => createClient(env.url, env.anonKey, { auth: { persistSession: false } });
  const [alice, bob] = [make(), make()];
  const received = [];
  const aliceChannel = alice.channel(topic, { config: { presence: { key: 'alice' } } });
  const bobChannel = bob.channel(topic, { config: { presence: { key: 'bob' } } })
    .on('broadcast', { event: 'hello' }, ({ payload }) => received.push(payload));
  // One socket after the other, nothing between them: nginx puts them on different replicas.
  await subscribed(aliceChannel);
  await subscribed(bobChannel);
  await aliceChannel.track({ name: 'Alice' });
  await bobChannel.track({ name: 'Bob' });
  const everyone = (channel) => Object.keys(channel.presenceState()).sort().join(',') === 'alice,bob';
  await waitFor(() => everyone(aliceChannel) && everyone(bobChannel), 'both presences on both sides');
  assert.equal((await aliceChannel.send({ type: 'broadcast', event: 'hello', payload: { from: 'alice' } })), 'ok');
  await waitFor(() => received.length === 1, 'the broadcast');
  assert.deepEqual(received, [{ from: 'alice' }]);
  await alice.removeAllChannels();
  await bob.removeAllChannels();
  // nginx logs a websocket when it closes.
  const sockets = await waitFor(() => {
    const replicas = loggedReplicas('/realtime/v1/websocket', 101);
    return replicas.length === 2 && replicas;
  }, 'both sockets in the access log');
  assert.equal(new Set(sockets).size, 2, `the two sockets were on ${sockets}`);
});

test('an object uploaded through one replica downloads through the other', async () => {
  const { served, fetch } = tracked();
  const service = createClient(env.url, env.serviceKey, { auth: { persistSession: false }, global: { fetch } });
  const bucket = `topology-${crypto.randomBytes(4).toString('hex')}`;
  assert.equal((await service.storage.createBucket(bucket, { public: false })).error, null);
  const bytes = crypto.randomBytes(300_000);
  const upload = await service.storage.from(bucket).upload('dir/blob.bin', bytes, { contentType: 'application/octet-stream' });
  assert.equal(upload.error, null);
  const uploadedOn = served.at(-1).replica;
  const downloaders = new Set();
  for (let i = 0; i < 2; i++) {
    const { data, error } = await service.storage.from(bucket).download('dir/blob.bin');
    assert.equal(error, null);
    assert.ok(Buffer.from(await data.arrayBuffer()).equals(bytes));
    downloaders.add(served.at(-1).replica);
  }
  assert.ok([...downloaders].some((replica) => replica !== uploadedOn), 'a download on the other replica');
});

test('the sign-in rate limit counts across every worker of both replicas', async () => {
  const setup = userClient(tracked().fetch);
  const { email } = await signedUp(setup);
  const { served, fetch } = tracked();
  const supabase = userClient(fetch);
  const answers = [];
  for (let i = 0; i < 2 * SIGN_IN_LIMIT; i++) {
    const { error } = await supabase.auth.signInWithPassword({ email, password: PASSWORD });
    answers.push(error ? `${error.status} ${error.code}` : 'ok');
  }
  // Every attempt the limit lets through counts, answered or refused by the device rule
  // (two sessions per account: compose's setting).
  const allowed = answers.filter((a) => a !== '429 over_request_rate_limit').length;
  assert.ok(answers.slice(0, allowed).every((a) => a === 'ok' || a === '403 session_limit_reached'), answers.join(', '));
  // Counted per process, each replica would let SIGN_IN_LIMIT through (every attempt passes);
  // counted together, the limit holds (one more when the bucket refills meanwhile).
  assert.ok(allowed >= SIGN_IN_LIMIT && allowed <= SIGN_IN_LIMIT + 1, answers.join(', '));
  assert.ok(answers.slice(allowed).length >= SIGN_IN_LIMIT - 1, answers.join(', '));
  assert.equal(new Set(served.map((s) => s.replica)).size, 2);
});

test("the site's / is the built app", async () => {
  const response = await fetch(`${env.url}/`);
  assert.equal(response.status, 200);
  const html = await response.text();
  assert.match(html, /<div id="root">/);
  const script = html.match(/src="(\/assets\/[^"]+\.js)"/);
  assert.ok(script, 'the built app loads its bundle');
  const bundle = await fetch(`${env.url}${script[1]}`);
  assert.equal(bundle.status, 200);
  assert.match(bundle.headers.get('content-type'), /javascript/);
});

// Last: the stack has one replica left after it.
test('a replica killed mid-traffic: clients retry onto the other, subscribers rejoin there', async () => {
  const victim = Number(process.env.TOPOLOGY_VICTIM_PGID);
  const survivor = process.env.TOPOLOGY_SURVIVOR;
  // Two users, each writing its own notes and subscribed to them; their sockets opened one
  // after the other, so one of them is on the replica that dies.
  const users = [];
  for (let i = 0; i < 2; i++) {
    const { served, fetch } = tracked();
    const supabase = userClient(fetch);
    await signedUp(supabase);
    users.push({ supabase, served, events: [] });
  }
  for (const user of users) {
    user.channel = user.supabase.channel(`kill-${crypto.randomBytes(4).toString('hex')}`)
      .on('postgres_changes', { event: 'INSERT', schema: 'public', table: TABLE }, ({ new: row }) => user.events.push(row.body));
    await subscribed(user.channel);
  }
  const firstFailures = [];
  const retriesFailed = [];
  let killed = false;
  let running = true;
  const servedAfterKill = [];
  const loop = async ({ supabase, served }, n) => {
    for (let i = 0; running; i++) {
      for (let attempt = 0; attempt < 2; attempt++) {
        const afterKill = killed;
        const { error } = i % 2
          ? await supabase.from(TABLE).insert({ body: `loop ${n}.${i}` })
          : await supabase.from(TABLE).select('id').limit(1);
        if (!error) {
          if (afterKill) servedAfterKill.push(served.at(-1).replica);
          break;
        }
        (attempt === 0 ? firstFailures : retriesFailed).push(`${error.code ?? ''} ${error.message.replace(/\s+/g, ' ').slice(0, 80)}`);
      }
    }
  };
  const loops = [...users.map(loop), ...users.map(loop)]; // two loops per user: four clients
  await new Promise((resolve) => setTimeout(resolve, 1500));
  process.kill(-victim, 'SIGKILL'); // the replica's process group: its master and workers
  killed = true;
  await new Promise((resolve) => setTimeout(resolve, 3000));
  running = false;
  await Promise.all(loops);
  assert.deepEqual(retriesFailed, []);
  assert.ok(firstFailures.length <= loops.length, `at most one in flight per client: ${firstFailures}`);
  const tail = servedAfterKill.slice(loops.length); // past the kill's moment
  assert.ok(tail.length > 20 && tail.every((replica) => replica.endsWith(survivor)), `${new Set(tail)}`);
  // Both subscribers get what is written now: the one whose socket died has rejoined the survivor.
  for (const [n, user] of users.entries()) {
    await waitFor(() => user.channel.state === 'joined', `subscriber ${n} joined again`, 20000);
  }
  for (const [n, user] of users.entries()) {
    const body = `after the kill ${n}`;
    assert.equal((await user.supabase.from(TABLE).insert({ body })).error, null);
    await waitFor(() => user.events.includes(body), `subscriber ${n} sees a note written after the kill`, 10000);
  }
  console.log(`killed mid-traffic: ${firstFailures.length} requests failed once (${firstFailures}), ${servedAfterKill.length} answered after`);
  for (const { supabase } of users) await supabase.removeAllChannels();
});
