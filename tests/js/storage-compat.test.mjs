// The unmodified supabase-js storage client against the answers storage-api's current
// source gives: listV2 folders / sort / cursor, info, renders, buckets, downloads, no token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { env, serviceClient } from './support.mjs';

const tag = Math.random().toString(36).slice(2, 8);
const admin = serviceClient();
const JS_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const service = { apikey: env.serviceKey, Authorization: `Bearer ${env.serviceKey}` };
// A 4x4 PNG.
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAQAAAAECAIAAAAmkwkpAAAAFElEQVR4nGM8ISfHAANMDEgANwcANHYBDK9qubUAAAAASUVORK5CYII=', 'base64');

function sql(statement) {
  execFileSync('psql', [env.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement]);
}

test('listV2: folders as {key, name}, objects with keys, cursor pages in key order', async () => {
  const bucket = `v2-${tag}`;
  await admin.storage.createBucket(bucket);
  const files = admin.storage.from(bucket);
  for (const name of ['fold/a.txt', 'fold/sub/b.txt', 'fold.txt', 'top.txt']) {
    assert.equal((await files.upload(name, new Blob([name], { type: 'text/plain' }))).error, null);
  }
  const { data: top, error } = await files.listV2({ with_delimiter: true });
  assert.equal(error, null);
  assert.deepEqual(top.folders.map((f) => [f.key, f.name]), [['fold', 'fold/']]);
  assert.deepEqual(top.objects.map((o) => [o.key, o.name]), [['fold.txt', 'fold.txt'], ['top.txt', 'top.txt']]);
  assert.equal(top.hasNext, false);
  assert.match(top.objects[0].created_at, JS_DATE);

  const { data: inner } = await files.listV2({ with_delimiter: true, prefix: 'fold/' });
  assert.deepEqual(inner.folders.map((f) => [f.key, f.name]), [['sub', 'fold/sub/']]);
  assert.deepEqual(inner.objects.map((o) => [o.key, o.name]), [['a.txt', 'fold/a.txt']]);

  const seen = [];
  let cursor;
  for (let i = 0; i < 10; i += 1) {
    const { data: page } = await files.listV2({ with_delimiter: true, limit: 1, ...(cursor ? { cursor } : {}) });
    seen.push(...page.folders.map((f) => f.name), ...page.objects.map((o) => o.name));
    if (!page.hasNext) break;
    cursor = page.nextCursor;
  }
  assert.deepEqual(seen, ['fold.txt', 'fold/', 'top.txt']); // '.' sorts before '/'
});

test('listV2 sorted by created_at pages with a date cursor', async () => {
  const bucket = `v2date-${tag}`;
  await admin.storage.createBucket(bucket);
  const files = admin.storage.from(bucket);
  const days = { 'b.txt': '2024-03-01', 'a.txt': '2024-03-03', 'dir/c.txt': '2024-03-02' };
  for (const name of Object.keys(days)) await files.upload(name, new Blob([name]));
  for (const [name, day] of Object.entries(days)) {
    sql(`update storage.objects set created_at = '${day}T08:00:00Z' where bucket_id = '${bucket}' and name = '${name}'`);
  }
  const seen = [];
  let cursor;
  for (let i = 0; i < 10; i += 1) {
    const { data: page } = await files.listV2({
      with_delimiter: true, limit: 1, sortBy: { column: 'created_at', order: 'desc' }, ...(cursor ? { cursor } : {}),
    });
    seen.push(...page.folders.map((f) => f.name), ...page.objects.map((o) => o.name));
    if (!page.hasNext) break;
    cursor = page.nextCursor;
  }
  assert.deepEqual(seen, ['a.txt', 'dir/', 'b.txt']);
  const bad = await files.listV2({ cursor: '!!!' });
  assert.equal(bad.error.statusCode, '400');
  assert.equal(bad.error.message, 'Invalid Parameter continuation token');
});

test('info of an object without metadata; buckets as storage-api sends them', async () => {
  const bucket = `info-${tag}`;
  assert.equal((await admin.storage.createBucket(bucket, { allowedMimeTypes: ['IMAGE/*', 'text/plain; charset=utf-8'] })).error, null);
  const files = admin.storage.from(bucket);
  await files.upload('plain.txt', new Blob(['hi'], { type: 'text/plain' }));
  const { data: info } = await files.info('plain.txt');
  assert.deepEqual(info.metadata, {});
  assert.match(info.createdAt, JS_DATE);

  const { data: one } = await admin.storage.getBucket(bucket);
  assert.deepEqual(Object.keys(one), ['id', 'name', 'owner', 'public', 'file_size_limit', 'allowed_mime_types', 'created_at', 'updated_at']);
  assert.deepEqual(one.allowed_mime_types, ['image/*', 'text/plain']);
  assert.match(one.created_at, JS_DATE);
  const { data: all } = await admin.storage.listBuckets({ search: bucket });
  assert.equal(all[0].type, 'STANDARD');

  const wrong = await files.upload('page.html', new Blob(['<p>'], { type: 'text/html' }));
  assert.equal(wrong.error.statusCode, '415');
  assert.equal((await files.upload('pic.png', png, { contentType: 'image/png' })).error, null);
  const refused = await admin.storage.createBucket(`bad-${tag}`, { allowedMimeTypes: ['*/*'] });
  assert.equal(refused.error.message, 'mime type */* is not supported');
  const analytics = await admin.storage.createBucket(`lake-${tag}`, { type: 'ANALYTICS' });
  assert.equal(analytics.error.statusCode, '400');

  assert.deepEqual(await admin.storage.emptyBucket(bucket),
    { data: { message: 'Empty bucket has been queued. Completion may take up to an hour.' }, error: null });
});

test('renders answer with the output format and imgproxy X-Transformations', async () => {
  const bucket = `render-${tag}`;
  await admin.storage.createBucket(bucket);
  const files = admin.storage.from(bucket);
  await files.upload('pic.txt', png, { contentType: 'text/plain' }); // a PNG stored as text/plain
  const { data: blob, error } = await files.download('pic.txt', { transform: { width: 2, height: 2, resize: 'cover', quality: 60 } });
  assert.equal(error, null);
  assert.equal(blob.type, 'image/png');
  const url = `${env.url}/storage/v1/render/image/authenticated/${bucket}/pic.txt?width=2&height=2&resize=contain&quality=60`;
  const raw = await fetch(url, { headers: service });
  assert.equal(raw.headers.get('x-transformations'), 'height:2,width:2,resizing_type:fit,quality:60');
  const webp = await fetch(`${env.url}/storage/v1/render/image/authenticated/${bucket}/pic.txt?width=2`, {
    headers: { ...service, accept: 'image/webp,*/*' },
  });
  assert.equal(webp.headers.get('content-type'), 'image/webp');

  const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10" fill="green"/></svg>';
  await files.upload('logo.svg', new Blob([svg], { type: 'image/svg+xml' }));
  const { data: drawn, error: svgError } = await files.download('logo.svg', { transform: { width: 40 } });
  assert.equal(svgError, null);
  assert.equal(drawn.type, 'image/png');
});

test('downloads: names without a trailing semicolon; ranges past the end; no token at all', async () => {
  const bucket = `dl-${tag}`;
  await admin.storage.createBucket(bucket, { public: true });
  const files = admin.storage.from(bucket);
  await files.upload('notes.txt', new Blob(['0123456789'], { type: 'text/plain' }));
  const { data: named } = files.getPublicUrl('notes.txt', { download: 'leçon 1.txt' });
  const response = await fetch(named.publicUrl);
  assert.equal(response.headers.get('content-disposition'), "attachment; filename=\"le_on 1.txt\"; filename*=UTF-8''le%C3%A7on%201.txt");
  const { data: bare } = files.getPublicUrl('notes.txt', { download: true });
  assert.equal((await fetch(bare.publicUrl)).headers.get('content-disposition'), 'attachment;');

  const past = await fetch(`${env.url}/storage/v1/object/${bucket}/notes.txt`, { headers: { ...service, Range: 'bytes=100-' } });
  assert.equal(past.status, 400);
  assert.deepEqual(await past.json(), {
    statusCode: '416', code: 'S3Error', error: 'The requested range is not satisfiable', message: 'InvalidRange',
  });

  const anonymous = await fetch(`${env.url}/storage/v1/bucket`);
  assert.equal(anonymous.status, 400);
  assert.deepEqual(await anonymous.json(), {
    statusCode: '403', code: 'AccessDenied', error: 'Unauthorized', message: 'Invalid Compact JWS',
  });
  assert.equal((await fetch(named.publicUrl.split('?')[0])).status, 200); // public objects need no token
});
