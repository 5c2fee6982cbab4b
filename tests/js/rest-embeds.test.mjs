// postgrest-js select strings for PostgREST's embedding features (computed relationships,
// to-many spreads, null-embed filters in or(), empty embeds), over tests/rest/fixture_embeds.sql.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client } from './support.mjs';

const anon = client();

const ok = ({ data, error }) => { assert.equal(error, null); return data; };

test('a computed relationship embeds like a foreign key', async () => {
  const data = ok(await anon.from('em_channels').select('id, all:em_all_messages(id, message)')
    .eq('id', 2));
  assert.deepEqual(data, [{ id: 2, all: [{ id: 4, message: 'off topic' }] }]);
  const last = ok(await anon.from('em_channels').select('slug, em_last_message(id)').eq('id', 1).single());
  assert.deepEqual(last, { slug: 'general', em_last_message: { id: 3 } });
});

test('computed fields select, filter and order like columns', async () => {
  const data = ok(await anon.from('em_messages').select('id, em_shout').gt('em_length', 7).order('em_length'));
  assert.deepEqual(data, [{ id: 2, em_shout: 'HI THERE' }, { id: 4, em_shout: 'OFF TOPIC' }]);
});

test('a to-many spread gives one array per column', async () => {
  const data = ok(await anon.from('em_channels').select('channel_id:id, ...em_messages(id, message)').order('id').limit(2));
  assert.deepEqual(data, [
    { channel_id: 1, id: [1, 2, 3], message: ['hello', 'hi there', 'welcome'] },
    { channel_id: 2, id: [4], message: ['off topic'] },
  ]);
});

test('or() reaches embedded resources with is.null', async () => {
  const data = ok(await anon.from('em_messages').select('id, em_users(username)')
    .eq('em_users.username', 'bob').or('em_users.not.is.null,id.eq.1').order('id'));
  assert.deepEqual(data, [{ id: 1, em_users: null }, { id: 2, em_users: { username: 'bob' } }, { id: 4, em_users: { username: 'bob' } }]);
});

test('an empty inner embed filters without adding a key', async () => {
  const data = ok(await anon.from('em_messages').select('id, em_users!inner()').eq('em_users.username', 'ann').order('id'));
  assert.deepEqual(data, [{ id: 1 }, { id: 3 }]);
});

test('self references: the column names the parent, the table the children', async () => {
  const data = ok(await anon.from('em_collections').select('name, parent:parent_id(name), children:em_collections(name)').eq('id', 2).single());
  assert.deepEqual(data, { name: 'left', parent: { name: 'root' }, children: [{ name: 'leaf' }] });
});
