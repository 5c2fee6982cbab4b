// The unmodified supabase-js storage client against /storage/v1.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { env, client, serviceClient } from './support.mjs';

const JWT_SECRET = process.env.SUPALITE_JWT_SECRET || 'super-secret-jwt-token-with-at-least-32-characters-long';
const tag = Math.random().toString(36).slice(2, 8);
const admin = serviceClient();

function b64url(value) {
  return Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
}

/** A user access token signed like GoTrue's (no dependency on /auth/v1). */
function userClient(userId) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({ sub: userId, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 });
  const sig = createHmac('sha256', JWT_SECRET).update(`${head}.${body}`).digest('base64url');
  return client(env.anonKey, { global: { headers: { Authorization: `Bearer ${head}.${body}.${sig}` } } });
}

function sql(statement) {
  execFileSync('psql', [env.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement]);
}

test('buckets: create public and private with limits, get, list, update', async () => {
  const pub = `pub-${tag}`;
  const priv = `priv-${tag}`;
  assert.deepEqual(await admin.storage.createBucket(pub, { public: true }), { data: { name: pub }, error: null });
  const created = await admin.storage.createBucket(priv, {
    public: false, fileSizeLimit: '1MB', allowedMimeTypes: ['image/png', 'text/plain'],
  });
  assert.equal(created.error, null);
  const { data: bucket } = await admin.storage.getBucket(priv);
  assert.equal(bucket.public, false);
  assert.equal(bucket.file_size_limit, 1000000);
  assert.deepEqual(bucket.allowed_mime_types, ['image/png', 'text/plain']);
  const { data: all } = await admin.storage.listBuckets();
  assert.ok(all.some((b) => b.id === pub) && all.some((b) => b.id === priv));
  assert.equal((await admin.storage.updateBucket(priv, { public: false, fileSizeLimit: 2000000 })).error, null);
  const again = await admin.storage.createBucket(pub);
  assert.equal(again.error.statusCode, '409');
  const missing = await admin.storage.getBucket(`nope-${tag}`);
  assert.equal(missing.error.statusCode, '404');
});

test('upload File, Blob and ArrayBuffer; upsert off then on; download; info; exists', async () => {
  const bucket = `files-${tag}`;
  await admin.storage.createBucket(bucket, { public: false });
  const files = admin.storage.from(bucket);
  const file = new File(['hello file'], 'hello.txt', { type: 'text/plain' });
  const up = await files.upload('docs/hello.txt', file, { cacheControl: '3600' });
  assert.equal(up.error, null);
  assert.equal(up.data.path, 'docs/hello.txt');
  assert.equal(up.data.fullPath, `${bucket}/docs/hello.txt`);
  assert.ok(up.data.id);
  assert.equal((await files.upload('docs/blob.bin', new Blob([new Uint8Array([1, 2, 3])], { type: 'application/octet-stream' }))).error, null);
  const buffer = new TextEncoder().encode('%PDF-1.4 lesson').buffer;
  assert.equal((await files.upload('docs/lesson.pdf', buffer, { contentType: 'application/pdf', metadata: { lesson: 1 } })).error, null);

  const dup = await files.upload('docs/hello.txt', new Blob(['again']));
  assert.equal(dup.error.statusCode, '409');
  assert.equal((await files.upload('docs/hello.txt', new Blob(['replaced'], { type: 'text/plain' }), { upsert: true })).error, null);

  const { data: blob, error } = await files.download('docs/hello.txt');
  assert.equal(error, null);
  assert.equal(await blob.text(), 'replaced');

  const { data: info } = await files.info('docs/lesson.pdf');
  assert.equal(info.contentType, 'application/pdf');
  assert.equal(info.size, 15);
  assert.equal(info.cacheControl, 'max-age=3600');
  assert.deepEqual(info.metadata, { lesson: 1 });
  assert.deepEqual(await files.exists('docs/lesson.pdf'), { data: true, error: null });
  assert.equal((await files.exists('docs/absent.pdf')).data, false);

  const raw = await fetch(`${env.url}/storage/v1/object/${bucket}/docs/lesson.pdf`, {
    headers: { apikey: env.serviceKey, Authorization: `Bearer ${env.serviceKey}` },
  });
  assert.equal(raw.headers.get('cache-control'), 'max-age=3600');
});

test('list with folders and search, move, copy, remove many', async () => {
  const bucket = `tree-${tag}`;
  await admin.storage.createBucket(bucket);
  const files = admin.storage.from(bucket);
  for (const name of ['a.txt', 'b.txt', 'sub/c.txt', 'sub/deep/d.txt', 'other/e.txt']) {
    assert.equal((await files.upload(name, new Blob([name]))).error, null);
  }
  const { data: top } = await files.list();
  assert.deepEqual(top.map((e) => e.name), ['other', 'sub', 'a.txt', 'b.txt']);
  assert.equal(top[0].id, null);
  assert.ok(top[2].id && top[2].metadata.size === 5);
  const { data: sub } = await files.list('sub');
  assert.deepEqual(sub.map((e) => e.name), ['deep', 'c.txt']);
  const { data: found } = await files.list('', { search: 'b' });
  assert.deepEqual(found.map((e) => e.name), ['b.txt']);
  const { data: paged } = await files.list('', { limit: 1, offset: 1, sortBy: { column: 'name', order: 'asc' } });
  assert.deepEqual(paged.map((e) => e.name), ['sub']);

  assert.deepEqual(await files.move('a.txt', 'moved/a.txt'), { data: { message: 'Successfully moved' }, error: null });
  assert.equal((await files.download('a.txt')).error.statusCode, '404');
  assert.equal(await (await files.download('moved/a.txt')).data.text(), 'a.txt');
  const copied = await files.copy('b.txt', 'copies/b.txt');
  assert.deepEqual(copied, { data: { path: `${bucket}/copies/b.txt` }, error: null });
  assert.equal(await (await files.download('copies/b.txt')).data.text(), 'b.txt');

  const { data: removed } = await files.remove(['b.txt', 'copies/b.txt', 'not-there.txt']);
  assert.deepEqual(removed.map((r) => r.name).sort(), ['b.txt', 'copies/b.txt']);
  assert.equal((await files.exists('b.txt')).data, false);

  const { data: v2 } = await files.listV2({ prefix: 'sub/', with_delimiter: true });
  assert.deepEqual(v2.folders.map((f) => f.name), ['sub/deep/']);
  assert.deepEqual(v2.objects.map((o) => o.name), ['sub/c.txt']);
});

test('signed URLs (with and without transform), signed upload URLs, public URLs', async () => {
  const pub = `site-${tag}`;
  const priv = `vault-${tag}`;
  await admin.storage.createBucket(pub, { public: true });
  await admin.storage.createBucket(priv);
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFElEQVR4nGM8ISfHAANMDEgANwcANHYBDK9qubUAAAAASUVORK5CYII=', 'base64');
  assert.equal((await admin.storage.from(priv).upload('img/cover.png', png, { contentType: 'image/png' })).error, null);
  assert.equal((await admin.storage.from(pub).upload('cover.png', png, { contentType: 'image/png' })).error, null);

  const { data: signed } = await admin.storage.from(priv).createSignedUrl('img/cover.png', 60);
  const plain = await fetch(signed.signedUrl);
  assert.equal(plain.status, 200);
  assert.deepEqual(Buffer.from(await plain.arrayBuffer()), png);

  const { data: resized } = await admin.storage.from(priv).createSignedUrl('img/cover.png', 60, { transform: { width: 2, height: 2 } });
  assert.match(resized.signedUrl, /\/render\/image\/sign\//);
  const image = await fetch(resized.signedUrl);
  assert.equal(image.status, 200);
  assert.equal(image.headers.get('content-type'), 'image/png');

  const { data: many } = await admin.storage.from(priv).createSignedUrls(['img/cover.png', 'img/none.png'], 60);
  assert.equal(many[0].error, null);
  assert.equal((await fetch(many[0].signedUrl)).status, 200);
  assert.equal(many[1].signedUrl, null);

  const tampered = signed.signedUrl.replace('img/cover.png', 'img/other.png');
  assert.equal((await fetch(tampered)).status, 400);

  const { data: upload } = await admin.storage.from(priv).createSignedUploadUrl('uploads/new.txt');
  const done = await client().storage.from(priv).uploadToSignedUrl('uploads/new.txt', upload.token, new Blob(['via token'], { type: 'text/plain' }));
  assert.equal(done.error, null);
  assert.equal(done.data.fullPath, `${priv}/uploads/new.txt`);
  assert.equal(await (await admin.storage.from(priv).download('uploads/new.txt')).data.text(), 'via token');

  const { data: url } = client().storage.from(pub).getPublicUrl('cover.png');
  const anonymous = await fetch(url.publicUrl);
  assert.equal(anonymous.status, 200);
  const { data: privateUrl } = client().storage.from(priv).getPublicUrl('img/cover.png');
  assert.equal((await fetch(privateUrl.publicUrl)).status, 400);
  const { data: thumb } = client().storage.from(pub).getPublicUrl('cover.png', { transform: { width: 2, height: 2, resize: 'contain' } });
  assert.equal((await fetch(thumb.publicUrl)).status, 200);
});

test('a policy lets a user touch only {auth.uid()}/... and refuses a second user', async () => {
  const bucket = `own-${tag}`;
  await admin.storage.createBucket(bucket);
  const check = `bucket_id = '${bucket}' and (storage.foldername(name))[1] = (select auth.uid()::text)`;
  sql(`create policy "own read ${tag}" on storage.objects for select to authenticated using (${check});
       create policy "own write ${tag}" on storage.objects for insert to authenticated with check (${check});
       create policy "own update ${tag}" on storage.objects for update to authenticated using (${check});
       create policy "own delete ${tag}" on storage.objects for delete to authenticated using (${check});`);
  const alice = randomUUID();
  const bob = randomUUID();
  const asAlice = userClient(alice).storage.from(bucket);
  const asBob = userClient(bob).storage.from(bucket);

  assert.equal((await asAlice.upload(`${alice}/avatar.txt`, new Blob(['alice']))).error, null);
  assert.equal((await asAlice.upload(`${alice}/avatar.txt`, new Blob(['alice 2']), { upsert: true })).error, null);
  assert.equal(await (await asAlice.download(`${alice}/avatar.txt`)).data.text(), 'alice 2');

  const intrude = await asBob.upload(`${alice}/evil.txt`, new Blob(['bob']));
  assert.equal(intrude.error.statusCode, '403');
  assert.equal((await asBob.download(`${alice}/avatar.txt`)).error.statusCode, '404');
  assert.deepEqual((await asBob.list(alice)).data, []);
  assert.equal((await asBob.createSignedUrl(`${alice}/avatar.txt`, 60)).error.statusCode, '404');
  assert.deepEqual((await asBob.remove([`${alice}/avatar.txt`])).data, []);
  assert.equal((await asBob.upload(`${bob}/mine.txt`, new Blob(['bob']))).error, null);
  assert.equal((await asAlice.move(`${alice}/avatar.txt`, `${bob}/stolen.txt`)).error.statusCode, '403');
  assert.equal((await asAlice.exists(`${alice}/avatar.txt`)).data, true);
});
