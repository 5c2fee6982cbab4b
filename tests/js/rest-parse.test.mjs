// The unmodified supabase-js query builder (postgrest-js) against /rest/v1, over the REST
// fixture schema (tests/rest/fixture.sql + fixture_parse.sql): what the client builds with
// names, blanks, quotes and ranges, read as PostgREST's grammar reads it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client } from './support.mjs';

const anon = client();

const ids = ({ data, error }) => { assert.equal(error, null); return data.map((r) => r.id); };

test('a column named with blanks, selected quoted and filtered', async () => {
  const res = await anon.from('ps_models').select('id, "Just A Server Model"').like('Just A Server Model', '*91*').order('id');
  assert.equal(res.error, null);
  assert.deepEqual(res.data, [{ id: 1, 'Just A Server Model': 'Model 1191' }, { id: 3, 'Just A Server Model': 'Model 3913' }]);
});

test('or() and in() with blanks and quoted values', async () => {
  assert.deepEqual(ids(await anon.from('ps_models').select('id').or('id.eq.1, and(id.gt.1, field-with-dash.lt.25)').order('id')), [1, 2]);
  assert.deepEqual(ids(await anon.from('ps_models').select('id').in('Just A Server Model', ['Model 1191', 'Model, 2200'])), [1]);
  assert.deepEqual(ids(await anon.from('ps_models').select('id').or('Just A Server Model.eq."Model 2200"')), [2]);
});

test('a JSON index and key in select and filters', async () => {
  const res = await anon.from('ps_models').select('id, first:data->a->0, k:data->>k').eq('data->>k', 'y');
  assert.equal(res.error, null);
  assert.deepEqual(res.data, [{ id: 2, first: 30, k: 'y' }]);
});

test('a malformed select is PGRST100 in PostgREST words', async () => {
  const { error, status } = await anon.from('ps_models').select('id::');
  assert.equal(status, 400);
  assert.deepEqual(error, { code: 'PGRST100', details: 'unexpected end of input expecting letter or digit', hint: null,
    message: '"failed to parse select parameter (id::)" (line 1, column 5)' });
});

test('ranges: an embedded negative limit reaches PostgreSQL', async () => {
  const { error, status } = await anon.from('ps_models').select('id, ps_parts(id)').limit(-1, { referencedTable: 'ps_parts' });
  assert.equal(status, 400);
  assert.equal(error.code, '2201W');
});
