// The unmodified supabase-js query builder (postgrest-js) calling functions over /rest/v1:
// GET and HEAD on any function (read-only, as PostgREST), counts, pages, overloads, the one
// unnamed json parameter (tests/rest/fixture_rpc.sql).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, serviceClient } from './support.mjs';

const anon = client();
const service = serviceClient();

test('rpc get: a volatile function, called again and again', async () => {
  for (let i = 0; i < 3; i += 1) {
    const { data, error, status } = await anon.rpc('rpc_double', { a: 21 }, { get: true });
    assert.equal(error, null);
    assert.equal(status, 200);
    assert.equal(data, 42);
  }
  assert.equal((await anon.rpc('rpc_double', { a: 5 }, { get: true })).data, 10);
  const described = await anon.rpc('rpc_describe', { n: 1, label: 'x', tags: ['a', 'b'] }, { get: true });
  assert.equal(described.error, null);
  assert.deepEqual(described.data, { n: 1, label: 'x', tags: ['a', 'b'], meta: null });
});

test('rpc get: a function that writes fails in the read-only transaction', async () => {
  const { data, error, status } = await anon.rpc('rpc_log_note', { note: 'js-get' }, { get: true });
  assert.equal(data, null);
  assert.equal(status, 405);
  assert.equal(error.code, '25006');
  assert.equal(error.message, 'cannot execute INSERT in a read-only transaction');
  const posted = await anon.rpc('rpc_log_note', { note: 'js-post' });
  assert.equal(posted.error, null);
  const notes = (await service.from('rpc_log').select('note').in('note', ['js-get', 'js-post'])).data.map((r) => r.note);
  assert.deepEqual(notes, ['js-post']);
});

test('rpc count: the total of a set, paged', async () => {
  const all = await anon.rpc('rpc_series', { n: 5 }, { count: 'exact' });
  assert.equal(all.error, null);
  assert.deepEqual(all.data, [1, 2, 3, 4, 5]);
  assert.equal(all.count, 5);
  const page = await anon.rpc('rpc_series', { n: 5 }, { get: true, count: 'exact' }).range(1, 2);
  assert.equal(page.error, null);
  assert.deepEqual(page.data, [2, 3]);
  assert.equal(page.count, 5);
  assert.equal(page.status, 206);
  const head = await anon.rpc('rpc_items', { n: 4 }, { head: true, count: 'exact' });
  assert.equal(head.error, null);
  assert.equal(head.data, null);
  assert.equal(head.count, 4);
  const filtered = await anon.rpc('rpc_items', { n: 4 }, { count: 'exact' }).gt('id', 2).select('id');
  assert.deepEqual(filtered.data, [{ id: 3 }, { id: 4 }]);
  assert.equal(filtered.count, 2);
  const scalar = await anon.rpc('fx_add', { a: 1, b: 2 }, { get: true, count: 'exact' });
  assert.equal(scalar.data, 3);
  assert.equal(scalar.count, 1);
});

test('rpc overloads: the unnamed json parameter, ambiguous and missing functions', async () => {
  assert.deepEqual((await anon.rpc('rpc_unnamed_json', { A: 1, B: [2] })).data, { A: 1, B: [2] });
  assert.equal((await anon.rpc('rpc_ov_unnamed', { x: 1, y: 2 })).data, 'sum: 3');
  assert.equal((await anon.rpc('rpc_ov_unnamed')).data, 'none');
  assert.equal((await anon.rpc('rpc_ov_unnamed', { A: 1 })).data, 'json: {"A":1}');
  const ambiguous = await anon.rpc('rpc_amb', { a: 1 }, { get: true });
  assert.equal(ambiguous.status, 300);
  assert.equal(ambiguous.error.code, 'PGRST203');
  assert.equal(ambiguous.error.message, 'Could not choose the best candidate function between: '
    + 'public.rpc_amb(a => integer, b => text), public.rpc_amb(a => integer, c => integer)');
  const notCallable = await anon.rpc('rpc_unnamed_int', { x: 1, y: 2 });
  assert.equal(notCallable.status, 404);
  assert.equal(notCallable.error.code, 'PGRST202');
  assert.equal(notCallable.error.hint, 'Perhaps you meant to call the function public.rpc_unnamed_text');
});
