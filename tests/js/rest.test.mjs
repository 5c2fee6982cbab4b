// The unmodified supabase-js query builder (postgrest-js) against /rest/v1, over the REST
// fixture schema (tests/rest/fixture.sql), with RLS on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { env, client, serviceClient } from './support.mjs';

const secret = process.env.SUPALITE_JWT_SECRET || 'super-secret-jwt-token-with-at-least-32-characters-long';

function userToken(sub) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const head = b64({ alg: 'HS256', typ: 'JWT' });
  const body = b64({ sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + 3600 });
  const sig = createHmac('sha256', secret).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

function userClient(sub) {
  return client(env.anonKey, { global: { headers: { Authorization: `Bearer ${userToken(sub)}` } } });
}

const anon = client();
const service = serviceClient();

const titles = ({ data, error }) => { assert.equal(error, null); return data.map((r) => r.title); };

test('select with aliases, casts, json paths and embeds', async () => {
  const { data, error } = await anon.from('fx_books')
    .select('id, name:title, pages::text, lang:meta->>lang, author:fx_authors!author_id(name), fx_chapters(title), fx_genres(name)')
    .eq('id', 1).order('order_index', { referencedTable: 'fx_chapters', ascending: false }).limit(1, { referencedTable: 'fx_chapters' });
  assert.equal(error, null);
  assert.deepEqual(data, [{ id: 1, name: 'A Wizard of Earthsea', pages: '183', lang: 'en', author: { name: 'Ursula' },
    fx_chapters: [{ title: 'The School for Wizards' }], fx_genres: [{ name: 'fantasy' }] }]);
});

test('every filter method', async () => {
  const q = () => anon.from('fx_books').select('title').order('id');
  assert.deepEqual(titles(await q().eq('id', 3)), ['Mort']);
  assert.deepEqual(titles(await q().neq('id', 3).lt('id', 3)), ['A Wizard of Earthsea', 'The Dispossessed']);
  assert.deepEqual(titles(await q().gt('pages', 250).gte('pages', 288).lte('pages', 288)), ['Guards! Guards!']);
  assert.deepEqual(titles(await q().like('title', '%Guards%')), ['Guards! Guards!']);
  assert.deepEqual(titles(await q().ilike('title', 'mort')), ['Mort']);
  assert.deepEqual(titles(await q().likeAnyOf('title', ['Mort%', '%Earthsea'])), ['A Wizard of Earthsea', 'Mort']);
  assert.deepEqual(titles(await q().likeAllOf('title', ['%a%', '%Wiz%'])), ['A Wizard of Earthsea']);
  assert.deepEqual(titles(await q().ilikeAnyOf('title', ['mort', 'the%'])), ['The Dispossessed', 'Mort']);
  assert.deepEqual(titles(await q().ilikeAllOf('title', ['%GUARDS%', 'g%'])), ['Guards! Guards!']);
  assert.deepEqual(titles(await q().is('price', null)), ['Guards! Guards!']);
  assert.deepEqual(titles(await q().in('id', [2, 4])), ['The Dispossessed', 'Guards! Guards!']);
  assert.deepEqual(titles(await q().contains('tags', ['humour'])), ['Mort']);
  assert.deepEqual(titles(await q().contains('meta', { awards: ['x'] })), ['A Wizard of Earthsea']);
  assert.deepEqual(titles(await q().containedBy('tags', ['fantasy', 'humour'])), ['Mort', 'Guards! Guards!']);
  assert.deepEqual(titles(await q().overlaps('tags', ['sf', 'humour'])), ['The Dispossessed', 'Mort']);
  assert.deepEqual(titles(await q().textSearch('summary', 'wizard')), ['A Wizard of Earthsea']);
  assert.deepEqual(titles(await q().textSearch('summary', 'two worlds', { type: 'phrase', config: 'english' })), ['The Dispossessed']);
  assert.deepEqual(titles(await q().textSearch('summary', 'young wizard', { type: 'plain' })), ['A Wizard of Earthsea']);
  assert.deepEqual(titles(await q().textSearch('summary', 'dragon -wizard', { type: 'websearch' })), ['Guards! Guards!']);
  assert.deepEqual(titles(await q().match({ author_id: 2, pages: 243 })), ['Mort']);
  assert.deepEqual(titles(await q().not('price', 'is', null).not('id', 'in', '(1,2)')), ['Mort']);
  assert.deepEqual(titles(await q().or('id.eq.1,and(pages.gt.280,price.is.null)')), ['A Wizard of Earthsea', 'Guards! Guards!']);
  assert.deepEqual(titles(await q().filter('title', 'imatch', '^the')), ['The Dispossessed']);
  assert.deepEqual(titles(await q().filter('meta->>lang', 'eq', 'en').gt('pages', 300)), ['The Dispossessed']);
});

test('range filters', async () => {
  const rooms = async (b) => { const { data, error } = await b; assert.equal(error, null); return data.map((r) => r.room); };
  const q = () => anon.from('fx_reservations').select('room').order('room');
  assert.deepEqual(await rooms(q().rangeGt('seats', '[11,15)')), ['b']);
  assert.deepEqual(await rooms(q().rangeLt('seats', '[15,40)')), ['a']);
  assert.deepEqual(await rooms(q().rangeGte('seats', '[15,25)')), ['b']);
  assert.deepEqual(await rooms(q().rangeLte('seats', '[5,15)')), ['a']);
  assert.deepEqual(await rooms(q().rangeAdjacent('seats', '[10,20)')), ['a', 'b']);
  assert.deepEqual(await rooms(q().overlaps('seats', '[5,25)')), ['a', 'b']);
});

test('order, range, limit, count, single and maybeSingle', async () => {
  const r = await anon.from('fx_books').select('title', { count: 'exact' }).order('price', { ascending: false, nullsFirst: true }).range(0, 1);
  assert.equal(r.error, null);
  assert.equal(r.count, 4);
  assert.equal(r.status, 206);
  assert.deepEqual(r.data.map((x) => x.title), ['Guards! Guards!', 'The Dispossessed']);
  const head = await anon.from('fx_books').select('*', { count: 'exact', head: true }).gt('pages', 200);
  assert.equal(head.count, 3);
  assert.equal(head.data, null);
  const planned = await anon.from('fx_books').select('id', { count: 'planned' }).limit(1);
  assert.equal(typeof planned.count, 'number');
  const one = await anon.from('fx_books').select('id, title').eq('id', 3).single();
  assert.deepEqual(one.data, { id: 3, title: 'Mort' });
  const many = await anon.from('fx_books').select('id').single();
  assert.equal(many.error.code, 'PGRST116');
  assert.equal(many.status, 406);
  const none = await anon.from('fx_books').select('id').eq('id', 999).maybeSingle();
  assert.equal(none.error, null);
  assert.equal(none.data, null);
  const csv = await anon.from('fx_books').select('id,title').in('id', [3, 4]).order('id').csv();
  assert.equal(csv.data, 'id,title\n3,Mort\n4,"Guards! Guards!"'); // PostgreSQL's record text form quotes blanks
});

test('embedding through views, !inner and spread', async () => {
  const v = await anon.from('fx_book_list').select('title, fx_authors(name)').eq('id', 3);
  assert.deepEqual(v.data, [{ title: 'Mort', fx_authors: { name: 'Terry' } }]);
  const inner = await anon.from('fx_books').select('title, fx_genres!inner(name)').eq('fx_genres.name', 'humour');
  assert.deepEqual(inner.data, [{ title: 'Mort', fx_genres: [{ name: 'humour' }] }]);
  const spread = await anon.from('fx_books').select('title, ...fx_authors!author_id(author:name)').eq('id', 4);
  assert.deepEqual(spread.data, [{ title: 'Guards! Guards!', author: 'Terry' }]);
  const notNull = await anon.from('fx_books').select('title, fx_isbns(code)').not('fx_isbns', 'is', null).order('id');
  assert.deepEqual(notNull.data.map((b) => b.title), ['A Wizard of Earthsea', 'Mort']);
});

test('insert, upsert, update, delete', async () => {
  const name = `js-${randomUUID().slice(0, 8)}`;
  const ins = await service.from('fx_genres').insert({ name }).select().single();
  assert.equal(ins.error, null);
  assert.equal(ins.status, 201);
  assert.equal(ins.data.name, name);
  const minimal = await service.from('fx_genres').insert([{ name: `${name}-a` }, { name: `${name}-b` }]);
  assert.equal(minimal.error, null);
  assert.equal(minimal.data, null);
  assert.equal(minimal.status, 201);
  const dup = await service.from('fx_genres').insert({ name });
  assert.equal(dup.error.code, '23505');
  assert.equal(dup.status, 409);
  const ign = await service.from('fx_genres').upsert([{ name }, { name: `${name}-c` }], { onConflict: 'name', ignoreDuplicates: true }).select('name');
  assert.deepEqual(ign.data, [{ name: `${name}-c` }]);
  const merged = await service.from('fx_genres').upsert({ id: ins.data.id, name: `${name}-renamed` }).select('id, name');
  assert.deepEqual(merged.data, [{ id: ins.data.id, name: `${name}-renamed` }]);
  const defaults = await service.from('fx_books').insert([{ title: `${name}-1`, available: false }, { title: `${name}-2` }], { defaultToNull: false }).select('available');
  assert.deepEqual(defaults.data, [{ available: false }, { available: true }]);
  const upd = await service.from('fx_genres').update({ name: `${name}-z` }).eq('name', `${name}-a`).select('name');
  assert.deepEqual(upd.data, [{ name: `${name}-z` }]);
  const del = await service.from('fx_genres').delete({ count: 'exact' }).like('name', `${name}%`);
  assert.equal(del.error, null);
  assert.equal(del.count, 4);
  const ins2 = await service.from('fx_books').insert({ title: `${name}-emb`, author_id: 1 }, { count: 'exact' }).select('title, fx_authors!author_id(name)');
  assert.deepEqual(ins2.data, [{ title: `${name}-emb`, fx_authors: { name: 'Ursula' } }]);
  assert.equal(ins2.count, 1);
});

test('rpc: post, get, head, count, returns, filters', async () => {
  assert.deepEqual((await anon.rpc('fx_add', { a: 2, b: 3 })).data, 5);
  assert.deepEqual((await anon.rpc('fx_add', { a: 2, b: 40 }, { get: true })).data, 42);
  const head = await anon.rpc('fx_book_titles', { min_pages: 100 }, { head: true, count: 'exact' });
  assert.equal(head.count, 4);
  assert.equal(head.data, null);
  const set = await anon.rpc('fx_books_by_author', { author: 2 }).select('title').order('id', { ascending: false }).limit(1).returns();
  assert.deepEqual(set.data, [{ title: 'Guards! Guards!' }]);
  const filtered = await anon.rpc('fx_book_titles', { min_pages: 200 }, { get: true }).like('title', '%Guards%');
  assert.deepEqual(filtered.data, [{ id: 4, title: 'Guards! Guards!' }]);
  const single = await anon.rpc('fx_first_book').select('id').single();
  assert.deepEqual(single.data, { id: 1 });
  const missing = await anon.rpc('fx_add', { x: 1 });
  assert.equal(missing.error.code, 'PGRST202');
  assert.equal(missing.status, 404);
  const raised = await anon.rpc('fx_fail', { kind: 'raise' });
  assert.equal(raised.error.message, 'plain failure');
  assert.equal(raised.error.hint, 'a hint');
});

test('abortSignal cancels a request', async () => {
  const ac = new AbortController();
  ac.abort();
  const { error } = await anon.from('fx_books').select('id').abortSignal(ac.signal);
  assert.match(String(error.message), /abort/i);
});

test('RLS: anon, a user and the service role see different rows', async () => {
  const uid = randomUUID();
  const user = userClient(uid);
  const body = `rls-${uid}`;
  assert.equal((await user.from('fx_notes').insert({ body })).error, null);
  const mine = await user.from('fx_notes').select('body, owner_id').eq('body', body);
  assert.deepEqual(mine.data, [{ body, owner_id: uid }]);
  assert.deepEqual((await anon.from('fx_notes').select('body').eq('body', body)).data, []);
  assert.deepEqual((await userClient(randomUUID()).from('fx_notes').select('body').eq('body', body)).data, []);
  assert.deepEqual((await service.from('fx_notes').select('body').eq('body', body)).data, [{ body }]);
  const denied = await anon.from('fx_notes').insert({ body: 'anon' });
  assert.equal(denied.error.code, '42501');
  assert.equal(denied.status, 401);
});
