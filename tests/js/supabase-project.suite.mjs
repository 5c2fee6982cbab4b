// The unmodified supabase-js against a Supabase project folder run by `supalite start`
// (tests/provision/supabase_project/sample): its migrations, seed, config.toml settings and bucket took
// effect. Run by tests/provision/supabase_project/test_sample_project.py with the URL and keys that
// `supalite status -o env` printed, and SAMPLE_DIR, the project's copy.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { env, client, serviceClient, subscribed, uniqueEmail, waitFor } from './support.mjs';

const ADA = { id: 'ada00000-0000-4000-8000-000000000001', email: 'ada@example.com', password: 'ada-password' };
const BOB = { id: 'b0b00000-0000-4000-8000-000000000002', email: 'bob@example.com', password: 'bob-password' };
const TEST_PHONE = '15555550100'; // [auth.sms.test_otp]
const SEED_OBJECTS = path.join(process.env.SAMPLE_DIR ?? '', 'supabase', 'seed-objects', 'avatars');

async function signedIn({ email, password } = ADA) {
  const supabase = client();
  const { data, error } = await supabase.auth.signInWithPassword({ email, password });
  assert.equal(error, null);
  return { supabase, user: data.user };
}

function titles(rows) {
  return rows.map((row) => row.title);
}

test('seed rows: anon reads the public notes and profiles, never a private note', async () => {
  const anon = client();
  const everyPublic = await anon.from('notes').select('id', { count: 'exact', head: true });
  assert.equal(everyPublic.error, null);
  assert.equal(everyPublic.count, 60);
  const privateOnes = await anon.from('notes').select('title').eq('is_public', false);
  assert.equal(privateOnes.error, null);
  assert.deepEqual(privateOnes.data, []);
  const profiles = await anon.from('profiles').select('id, username').in('id', [ADA.id, BOB.id]).order('username');
  assert.deepEqual(profiles.data, [{ id: ADA.id, username: 'ada' }, { id: BOB.id, username: 'bob' }]);
  const view = await anon.from('public_notes').select('title, author').eq('title', 'Gardening tips');
  assert.equal(view.error, null);
  assert.deepEqual(view.data, [{ title: 'Gardening tips', author: 'bob' }]);
});

test('[api] max_rows = 50 caps a read; the count still says 60', async () => {
  const { data, count, error } = await client().from('notes').select('id', { count: 'exact' });
  assert.equal(error, null);
  assert.equal(data.length, 50);
  assert.equal(count, 60);
});

test('the seed user signs in and reads her own private note, not bob\'s', async () => {
  const { supabase, user } = await signedIn();
  assert.equal(user.id, ADA.id);
  const { data, error } = await supabase.from('notes').select('title, owner_id').eq('is_public', false);
  assert.equal(error, null);
  assert.deepEqual(data, [{ title: 'Garden plan for spring', owner_id: ADA.id }]);
  const wrong = await client().auth.signInWithPassword({ email: ADA.email, password: 'not-her-password' });
  assert.equal(wrong.error.code, 'invalid_credentials');
});

test('rpc: a security definer function counts every note, an invoker one searches under RLS', async () => {
  const totals = await client().rpc('note_totals');
  assert.equal(totals.error, null);
  assert.deepEqual(totals.data, { public: 60, private: 2 });
  const anonSearch = await client().rpc('search_notes', { term: 'garden' });
  assert.equal(anonSearch.error, null);
  assert.deepEqual(titles(anonSearch.data), ['Gardening tips']);
  const { supabase } = await signedIn();
  const hers = await supabase.rpc('search_notes', { term: 'garden' }).select('title');
  assert.deepEqual(titles(hers.data), ['Gardening tips', 'Garden plan for spring']);
});

test('writes under RLS: defaults from uuid_generate_v4(), auth.uid() and now(); another owner refused', async () => {
  const { supabase } = await signedIn();
  const created = await supabase.from('notes').insert({ title: 'Written by supabase-js' }).select().single();
  assert.equal(created.error, null);
  assert.match(created.data.id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(created.data.owner_id, ADA.id);
  assert.equal(created.data.is_public, false);
  assert.ok(Math.abs(Date.parse(created.data.created_at) - Date.now()) < 10 * 60 * 1000);
  const forged = await supabase.from('notes').insert({ title: 'As bob', owner_id: BOB.id });
  assert.equal(forged.error.code, '42501');
  const bobs = await supabase.from('notes').update({ title: 'Taken over' }).eq('owner_id', BOB.id).select();
  assert.deepEqual(bobs.data, []);
  const removed = await supabase.from('notes').delete().eq('id', created.data.id).select('id');
  assert.deepEqual(removed.data, [{ id: created.data.id }]);
});

test('a table from `supabase db diff` output: likes under its policies and primary key', async () => {
  const { supabase, user } = await signedIn();
  const { data: [tip] } = await supabase.from('notes').select('id').eq('title', 'Gardening tips');
  const liked = await supabase.from('note_likes').insert({ note_id: tip.id }).select('note_id, user_id').single();
  assert.equal(liked.error, null);
  assert.deepEqual(liked.data, { note_id: tip.id, user_id: user.id });
  const twice = await supabase.from('note_likes').insert({ note_id: tip.id });
  assert.equal(twice.error.code, '23505');
  const byAnon = await client().from('note_likes').insert({ note_id: tip.id, user_id: BOB.id });
  assert.equal(byAnon.error.code, '42501');
  const counted = await client().from('notes').select('title, note_likes(count)').eq('id', tip.id).single();
  assert.deepEqual(counted.data, { title: 'Gardening tips', note_likes: [{ count: 1 }] });
  const undone = await supabase.from('note_likes').delete().eq('note_id', tip.id).select('note_id');
  assert.deepEqual(undone.data, [{ note_id: tip.id }]);
});

test('[auth] minimum_password_length = 8: seven characters are weak, eight sign up', async () => {
  const weak = await client().auth.signUp({ email: uniqueEmail('sample-weak'), password: 'abcdefg' });
  assert.equal(weak.data.user, null);
  assert.equal(weak.error.name, 'AuthWeakPasswordError');
  assert.equal(weak.error.code, 'weak_password');
  assert.equal(weak.error.status, 422);
  assert.deepEqual(weak.error.reasons, ['length']);
  const supabase = client();
  const email = uniqueEmail('sample-ok');
  const ok = await supabase.auth.signUp({ email, password: 'abcdefgh', options: { data: { username: `u${Date.now()}` } } });
  assert.equal(ok.error, null);
  assert.ok(ok.data.session, '[auth.email] enable_confirmations = false: signed in at once');
  // The migration's trigger on auth.users made the profile.
  const profile = await supabase.from('profiles').select('username').eq('id', ok.data.user.id).single();
  assert.equal(profile.data.username, ok.data.user.user_metadata.username);
});

test('[auth] enable_anonymous_sign_ins = true', async () => {
  const supabase = client();
  const { data, error } = await supabase.auth.signInAnonymously();
  assert.equal(error, null);
  assert.equal(data.user.is_anonymous, true);
  const profile = await supabase.from('profiles').select('id, username').eq('id', data.user.id);
  assert.deepEqual(profile.data, [{ id: data.user.id, username: null }]);
});

test('[auth.sms.test_otp]: phone sign-in with the fixed code, no SMS sent', async () => {
  const supabase = client();
  const sent = await supabase.auth.signInWithOtp({ phone: `+${TEST_PHONE}` });
  assert.equal(sent.error, null);
  const wrong = await supabase.auth.verifyOtp({ phone: `+${TEST_PHONE}`, token: '000000', type: 'sms' });
  assert.equal(wrong.error.code, 'otp_expired');
  const { data, error } = await supabase.auth.verifyOtp({ phone: `+${TEST_PHONE}`, token: '123456', type: 'sms' });
  assert.equal(error, null);
  assert.equal(data.user.phone, TEST_PHONE);
  assert.ok(data.session.access_token);
  const inbox = await fetch(`${env.url}/inbox/api/v1/messages?phone=${TEST_PHONE}`);
  assert.equal(inbox.status, 200);
  assert.deepEqual((await inbox.json()).messages, []);
});

test('[storage.buckets.avatars]: public, its objects_path uploaded, its limits and policies applied', async () => {
  const service = serviceClient();
  const bucket = await service.storage.getBucket('avatars');
  assert.equal(bucket.error, null);
  assert.equal(bucket.data.public, true);
  assert.equal(bucket.data.file_size_limit, 1024 * 1024);
  assert.deepEqual(bucket.data.allowed_mime_types, ['image/png', 'image/jpeg']);

  const anon = client();
  const { data: { publicUrl } } = anon.storage.from('avatars').getPublicUrl('default.png');
  const response = await fetch(publicUrl);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('content-type'), 'image/png');
  assert.deepEqual(Buffer.from(await response.arrayBuffer()), await readFile(path.join(SEED_OBJECTS, 'default.png')));
  const nested = await anon.storage.from('avatars').download('team/ada.png');
  assert.equal(nested.error, null);
  assert.deepEqual(Buffer.from(await nested.data.arrayBuffer()), await readFile(path.join(SEED_OBJECTS, 'team', 'ada.png')));
  const listed = await anon.storage.from('avatars').list('team');
  assert.deepEqual(listed.data.map((entry) => entry.name), ['ada.png']);

  const png = await readFile(path.join(SEED_OBJECTS, 'default.png'));
  const byAnon = await anon.storage.from('avatars').upload('anyone/avatar.png', png, { contentType: 'image/png' });
  assert.equal(byAnon.error.statusCode, '403');
  const { supabase } = await signedIn();
  const own = await supabase.storage.from('avatars').upload(`${ADA.id}/avatar.png`, png, { contentType: 'image/png', upsert: true });
  assert.equal(own.error, null);
  const elsewhere = await supabase.storage.from('avatars').upload(`${BOB.id}/avatar.png`, png, { contentType: 'image/png' });
  assert.equal(elsewhere.error.statusCode, '403');
  const text = await supabase.storage.from('avatars').upload(`${ADA.id}/notes.txt`, 'hello', { contentType: 'text/plain' });
  assert.equal(text.error.statusCode, '415');
  const removed = await service.storage.from('avatars').remove([`${ADA.id}/avatar.png`]);
  assert.equal(removed.error, null);
});

test('realtime: the notes publication sends ada bob\'s new public note, not his private one', async () => {
  const { supabase: ada } = await signedIn();
  const { supabase: bob } = await signedIn(BOB);
  const received = [];
  const channel = ada.channel('notes-feed')
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'notes' }, (payload) => received.push(payload.new.title));
  try {
    await subscribed(channel);
    // In commit order: once the public note has arrived, the private one would have too.
    const inserted = await bob.from('notes').insert([{ title: 'Bob thinks aloud' }]).select('id');
    const shared = await bob.from('notes').insert({ title: 'Bob shares a tip', is_public: true }).select('id');
    assert.equal(inserted.error, null);
    assert.equal(shared.error, null);
    await waitFor(() => received.includes('Bob shares a tip'), 'the public note');
    assert.deepEqual(received, ['Bob shares a tip']);
    const ids = [...inserted.data, ...shared.data].map((row) => row.id);
    assert.equal((await bob.from('notes').delete().in('id', ids).select('id')).data.length, 2);
  } finally {
    await ada.removeAllChannels();
    ada.realtime.disconnect();
  }
});
