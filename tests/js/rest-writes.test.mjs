// The unmodified supabase-js query builder (postgrest-js) writing and reading formats against
// /rest/v1, over the REST fixture schema (tests/rest/fixture.sql and fixture_writes.sql):
// upsert statuses, missing=default, limited updates, csv(), geojson(), explain(), planned counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { client, serviceClient } from './support.mjs';

const anon = client();
const service = serviceClient();

const unique = (prefix) => `${prefix}-${randomUUID().slice(0, 8)}`;

test('upsert: 201 when it inserts, 200 when it only updates, 201 for ignoreDuplicates', async () => {
  const name = unique('js');
  let res = await service.from('fx_w_langs').upsert([{ name, rank: 1 }]).select();
  assert.equal(res.error, null);
  assert.equal(res.status, 201);
  assert.deepEqual(res.data, [{ name, rank: 1 }]);
  res = await service.from('fx_w_langs').upsert([{ name, rank: 2 }]).select();
  assert.equal(res.status, 200);
  assert.deepEqual(res.data, [{ name, rank: 2 }]);
  res = await service.from('fx_w_langs').upsert({ name, rank: 3 });
  assert.equal(res.status, 200);
  res = await service.from('fx_w_langs').upsert([{ name, rank: 9 }], { ignoreDuplicates: true }).select();
  assert.equal(res.status, 201);
  assert.deepEqual(res.data, []);
});

test('upsert with defaultToNull: false fills the identity column', async () => {
  const [a, b] = [unique('a'), unique('b')];
  const { data, error, status } = await service.from('fx_w_keyed')
    .upsert([{ code: a }, { code: b, label: 'given' }], { onConflict: 'code', defaultToNull: false }).select('id, code, label');
  assert.equal(error, null);
  assert.equal(status, 201);
  assert.deepEqual(data.map((r) => [r.code, r.label]), [[a, null], [b, 'given']]);
  assert.ok(data.every((r) => Number.isInteger(r.id) && r.id > 2));
});

test('limited update and delete need an order', async () => {
  const { error } = await service.from('fx_w_queue').update({ state: 'js' }).limit(1);
  assert.equal(error.code, 'PGRST109');
  const { data, status } = await service.from('fx_w_queue').update({ state: 'js' }).order('id', { ascending: false })
    .limit(1).select('id, state');
  assert.equal(status, 200);
  assert.deepEqual(data, [{ id: 6, state: 'js' }]);
  const restored = await service.from('fx_w_queue').update({ state: 'new' }).eq('state', 'js').select('id');
  assert.deepEqual(restored.data, [{ id: 6 }]);
});

test('csv() in PostgreSQL text form', async () => {
  const { data, error } = await anon.from('fx_w_formats').select('id, flag, nums, doc').order('id').csv();
  assert.equal(error, null);
  assert.equal(data, 'id,flag,nums,doc\n1,t,"{1,2}","{""a"": 1, ""b"": [1, 2]}"\n2,f,{},"""text"""\n3,,,');
});

test('geojson() of a table with a geometry column', async (t) => {
  const { data, error } = await anon.from('fx_w_shops').select('id, shop_geom').eq('id', 1).geojson();
  if (error && error.code === 'PGRST205') {
    t.skip('PostGIS is not available in this PostgreSQL');
    return;
  }
  assert.equal(error, null);
  assert.deepEqual(data, {
    type: 'FeatureCollection',
    features: [{ type: 'Feature', geometry: { type: 'Point', coordinates: [-71.10044, 42.373695] }, properties: { id: 1 } }],
  });
});

test('explain() as JSON with settings, and as text', async () => {
  const { data, error } = await anon.from('fx_w_guess').select('*').explain({ format: 'json', settings: true });
  assert.equal(error, null);
  assert.equal(data[0].Plan['Node Type'], 'Aggregate');
  assert.deepEqual(data[0].Settings, { search_path: '"public", "public", "extensions"' });
  const text = await anon.from('fx_w_guess').select('*').csv().explain({ verbose: true });
  assert.equal(text.error, null);
  assert.match(text.data, /^Aggregate/);
  assert.match(text.data, /string_agg/);
});

test('count: planned is the planner estimate, exact the rows', async () => {
  const planned = await anon.from('fx_w_guess').select('*', { count: 'planned', head: true });
  assert.equal(planned.error, null);
  assert.ok(planned.count > 6, `a table never analyzed is guessed from its pages, not counted (${planned.count})`);
  const exact = await anon.from('fx_w_guess').select('*', { count: 'exact', head: true });
  assert.equal(exact.count, 6);
  const page = await anon.from('fx_w_guess').select('id', { count: 'planned' }).order('id').range(0, 1);
  assert.equal(page.status, 206);
  assert.equal(page.count, planned.count);
  assert.deepEqual(page.data, [{ id: 1 }, { id: 2 }]);
});
