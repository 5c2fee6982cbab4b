// supabase.functions.invoke (the unmodified supabase-js) against /functions/v1, the functions
// of tests/functions/test_functions_js.py's project: JSON, text, binary and streamed bodies, a
// function querying the database with the caller's JWT under RLS, verify_jwt on and off, a
// function past the wall-clock limit and one that throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FunctionsHttpError } from '@supabase/supabase-js';
import { client, uniqueEmail } from './support.mjs';

const anon = client();

test('a JSON body and a JSON answer', async () => {
  const { data, error } = await anon.functions.invoke('echo', { body: { name: 'Ada', langs: ['en', 'fr'] } });
  assert.equal(error, null);
  assert.deepEqual(data, {
    method: 'POST', contentType: 'application/json', body: { name: 'Ada', langs: ['en', 'fr'] },
    path: '/echo', custom: null,
  });
});

test('method, headers and a text body pass through; a text answer comes back as text', async () => {
  const { data, error } = await anon.functions.invoke('echo?as=text', {
    method: 'PUT', body: 'plain words', headers: { 'x-custom': 'yes' },
  });
  assert.equal(error, null);
  assert.equal(data, 'PUT text/plain plain words yes');
});

test('a binary body and a binary answer (a Blob)', async () => {
  // supabase-js sends a Blob or an ArrayBuffer as application/octet-stream (a typed array as JSON)
  const bytes = new Uint8Array([0, 1, 2, 250, 255]);
  const { data, error } = await anon.functions.invoke('reverse', { body: new Blob([bytes]) });
  assert.equal(error, null);
  assert.ok(data instanceof Blob);
  assert.deepEqual([...new Uint8Array(await data.arrayBuffer())], [255, 250, 2, 1, 0]);
});

test('a streamed answer (server-sent events) is read as it comes', async () => {
  const { data, error } = await anon.functions.invoke('events', { method: 'GET' });
  assert.equal(error, null);
  const reader = data.body.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  assert.equal(text, 'data: 0\n\ndata: 1\n\ndata: 2\n\n');
});

test("a function querying the database sees what the caller's JWT may see (RLS)", async () => {
  const author = client();
  const email = uniqueEmail('fn');
  const { error: signUpError } = await author.auth.signUp({ email, password: 'a-long-password-1' });
  assert.equal(signUpError, null);
  const inserted = await author.from('fn_notes').insert({ body: `note of ${email}` });
  assert.equal(inserted.error, null);

  const own = await author.functions.invoke('notes');
  assert.equal(own.error, null, own.error && `${own.error.context.status} ${await own.error.context.text()}`);
  assert.deepEqual(own.data, { notes: [`note of ${email}`], error: null });

  const anonymous = await anon.functions.invoke('notes');
  assert.equal(anonymous.error, null);
  assert.deepEqual(anonymous.data, { notes: [], error: null });
});

test('verify_jwt: an invalid token is refused before the function runs, unless it opted out', async () => {
  const stranger = client('not-a-jwt');
  const { data, error } = await stranger.functions.invoke('echo', { body: {} });
  assert.equal(data, null);
  assert.ok(error instanceof FunctionsHttpError);
  assert.equal(error.context.status, 401);
  assert.deepEqual(await error.context.json(), { msg: 'Invalid JWT' });

  const open = await stranger.functions.invoke('open');
  assert.equal(open.error, null);
  assert.equal(open.data, 'anyone may call me');
});

test('a function past the wall-clock limit answers 546 WORKER_LIMIT', async () => {
  const { data, error } = await anon.functions.invoke('sleepy');
  assert.equal(data, null);
  assert.ok(error instanceof FunctionsHttpError);
  assert.equal(error.context.status, 546);
  assert.equal((await error.context.json()).code, 'WORKER_LIMIT');
});

test('a function that throws answers 500 WORKER_ERROR', async () => {
  const { data, error } = await anon.functions.invoke('throws');
  assert.equal(data, null);
  assert.ok(error instanceof FunctionsHttpError);
  assert.equal(error.context.status, 500);
  assert.deepEqual(await error.context.json(),
    { code: 'WORKER_ERROR', message: 'Function exited due to an error (please check logs)' });
});

test('an unknown function is 404', async () => {
  const { error } = await anon.functions.invoke('no-such-function');
  assert.ok(error instanceof FunctionsHttpError);
  assert.equal(error.context.status, 404);
  assert.equal(await error.context.text(), 'Function not found');
});
