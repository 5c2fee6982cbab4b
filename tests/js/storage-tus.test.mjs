// Resumable uploads with the real tus-js-client, configured as Supabase documents it
// (https://supabase.com/docs/guides/storage/uploads/resumable-uploads).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import * as tus from 'tus-js-client';
import { env, serviceClient } from './support.mjs';

const JWT_SECRET = process.env.SUPALITE_JWT_SECRET || 'super-secret-jwt-token-with-at-least-32-characters-long';
const CHUNK = 6 * 1024 * 1024; // Supabase's documented chunkSize: it must be 6 MB
const tag = Math.random().toString(36).slice(2, 8);
const admin = serviceClient();
const bucket = `tus-${tag}`;

function b64url(value) {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** An access token signed like GoTrue's, for a user of our own. */
function userToken(userId) {
  const now = Math.floor(Date.now() / 1000);
  const head = b64url({ alg: 'HS256', typ: 'JWT' });
  const body = b64url({ sub: userId, role: 'authenticated', aud: 'authenticated', iat: now, exp: now + 3600 });
  const sig = createHmac('sha256', JWT_SECRET).update(`${head}.${body}`).digest('base64url');
  return `${head}.${body}.${sig}`;
}

function sql(statement) {
  execFileSync('psql', [env.databaseUrl, '-v', 'ON_ERROR_STOP=1', '-q', '-c', statement]);
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** tus.Upload with Supabase's documented options; resolves with the upload or its error. */
function resumable(file, { token, objectName, contentType = 'application/octet-stream', target = bucket,
  endpoint = `${env.url}/storage/v1/upload/resumable`, headers, ...options }) {
  let upload;
  const done = new Promise((resolve, reject) => {
    upload = new tus.Upload(file, {
      endpoint,
      retryDelays: [0, 1000, 3000],
      headers: headers ?? { authorization: `Bearer ${token}`, 'x-upsert': 'true' },
      uploadDataDuringCreation: true,
      removeFingerprintOnSuccess: true,
      metadata: { bucketName: target, objectName, contentType, cacheControl: '3600',
        metadata: JSON.stringify({ source: 'tus-js-client' }) },
      chunkSize: CHUNK,
      onError: reject,
      onSuccess: () => resolve(upload),
      ...options,
    });
  });
  return { upload, done };
}

const user = randomUUID();
const token = userToken(user);

test('setup: a private bucket where users write their own folder', async () => {
  const { error } = await admin.storage.createBucket(bucket, { public: false, fileSizeLimit: '50MB' });
  assert.equal(error, null);
  const own = `bucket_id = '${bucket}' and (storage.foldername(name))[1] = (select auth.uid()::text)`;
  for (const [action, clause] of [['select', 'using'], ['insert', 'with check'], ['update', 'using']]) {
    sql(`create policy "${bucket} ${action}" on storage.objects for ${action} to authenticated ${clause} (${own})`);
  }
});

test('a 13 MB video in 6 MB chunks lands as a normal upload would', async () => {
  const file = randomBytes(13 * 1024 * 1024);
  const objectName = `${user}/lesson.mp4`;
  const chunks = [];
  const { upload, done } = resumable(file, { token, objectName, contentType: 'video/mp4',
    onChunkComplete: (size, accepted, total) => chunks.push([size, accepted, total]) });
  upload.start();
  await done;
  assert.deepEqual(chunks.map(([, accepted]) => accepted), [CHUNK, 2 * CHUNK, file.length]);
  assert.match(upload.url, new RegExp(`^${env.url}/storage/v1/upload/resumable/[A-Za-z0-9_-]+$`));

  const { data, error } = await admin.storage.from(bucket).download(objectName);
  assert.equal(error, null);
  assert.equal(sha256(Buffer.from(await data.arrayBuffer())), sha256(file));
  assert.equal(data.type, 'video/mp4');
  const info = await admin.storage.from(bucket).info(objectName);
  assert.equal(info.error, null);
  assert.equal(info.data.size, file.length);
  assert.equal(info.data.cacheControl, 'max-age=3600');
  assert.deepEqual(info.data.metadata, { source: 'tus-js-client' });
});

test('an aborted upload resumes where the server says it is', async () => {
  const file = randomBytes(15 * 1024 * 1024);
  const objectName = `${user}/book.pdf`;
  const accepted = [];
  let aborted = false;
  const { upload, done } = resumable(file, { token, objectName, contentType: 'application/pdf',
    onChunkComplete: (size, bytes) => {
      accepted.push(bytes);
      if (!aborted) {
        aborted = true;
        upload.abort().then(() => setTimeout(() => upload.start(), 200)); // a network cut, then the retry
      }
    } });
  upload.start();
  await done;
  // The restart asked the server (HEAD) and went on from 6 MB, not from 0.
  assert.deepEqual(accepted, [CHUNK, 2 * CHUNK, file.length]);
  const { data } = await admin.storage.from(bucket).download(objectName);
  assert.equal(sha256(Buffer.from(await data.arrayBuffer())), sha256(file));
});

test('RLS refuses the creation before any byte is sent', async () => {
  const { upload, done } = resumable(Buffer.from('not mine'), { token, objectName: `${randomUUID()}/x.bin`,
    retryDelays: null });
  upload.start();
  const error = await done.then(() => null, (e) => e);
  assert.ok(error instanceof tus.DetailedError, String(error));
  assert.equal(error.originalResponse.getStatus(), 403);
  assert.equal(error.originalResponse.getBody(), 'new row violates row-level security policy');
});

test('an upload over the bucket limit is refused at creation', async () => {
  const small = `tus-small-${tag}`;
  assert.equal((await admin.storage.createBucket(small, { public: false, fileSizeLimit: '1KB' })).error, null);
  const { upload, done } = resumable(randomBytes(2000), { token: env.serviceKey, objectName: 'big.bin',
    target: small, retryDelays: null });
  upload.start();
  const error = await done.then(() => null, (e) => e);
  assert.equal(error.originalResponse.getStatus(), 413);
  assert.equal(error.originalResponse.getBody(), 'Maximum size exceeded\n');
});

test('a signed upload URL token works at /upload/resumable/sign', async () => {
  const objectName = `signed/${tag}.txt`;
  const { data: signed, error } = await admin.storage.from(bucket).createSignedUploadUrl(objectName);
  assert.equal(error, null);
  const { upload, done } = resumable(Buffer.from('signed bytes'), { objectName, contentType: 'text/plain',
    endpoint: `${env.url}/storage/v1/upload/resumable/sign`, headers: { 'x-signature': signed.token } });
  upload.start();
  await done;
  assert.match(upload.url, /\/storage\/v1\/upload\/resumable\/sign\/[A-Za-z0-9_-]+$/);
  const { data } = await admin.storage.from(bucket).download(objectName);
  assert.equal(await data.text(), 'signed bytes');
});
