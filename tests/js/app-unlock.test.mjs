// The unlock schedule as a client meets it, with the unmodified supabase-js: a locked lesson
// is absent from REST lists and selects, its file cannot be downloaded or signed; it opens
// when the schedule says so; the outline shows it locked with its date; the admin preview
// counts what the server grants.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { client, env, serviceClient, uniqueEmail } from './support.mjs';

const PASSWORD = 'app-unlock-123';
const DAY = 86_400_000;

async function signedIn(prefix) {
  const supabase = client();
  const { data, error } = await supabase.auth.signUp({ email: uniqueEmail(prefix), password: PASSWORD, options: { data: { full_name: prefix } } });
  assert.equal(error, null);
  return { supabase, id: data.user.id };
}

function ok(result, what) {
  assert.equal(result.error, null, `${what}: ${JSON.stringify(result.error)}`);
  return result.data;
}

let admin, learner, course, lessons;
const service = serviceClient();

/** Moves the learner's access start `days` days back (the schedule counts from it). */
async function accessStartedDaysAgo(days) {
  const since = new Date(Date.now() - days * DAY).toISOString();
  ok(await service.from('course_access').update({ created_at: since }).eq('user_id', learner.id).eq('course_id', course.id), 'move access start');
  return since;
}

async function setSchedule(values) {
  ok(await admin.supabase.from('course_unlock_schedules').update(values).eq('course_id', course.id), 'schedule');
}

before(async () => {
  admin = await signedIn('unlock-admin');
  learner = await signedIn('unlock-learner');
  ok(await service.from('profiles').update({ role: 'admin' }).eq('id', admin.id), 'promote');
  const a = admin.supabase;
  course = ok(await a.from('courses').insert({ title: 'Unlock course', visibility: 'private', created_by: admin.id }).select().single(), 'course');
  lessons = [];
  for (const [i, title] of ['Unit one', 'Unit two', 'Unit three', 'Unit four'].entries()) {
    const path = `${course.id}/${i}_unit.pdf`;
    ok(await a.storage.from('course-content').upload(path, new Blob([`%PDF-1.4 unit ${i}`], { type: 'application/pdf' })), 'upload');
    lessons.push(ok(await a.from('course_content').insert({ course_id: course.id, title, file_type: 'pdf', file_path: path, order_index: i }).select().single(), 'lesson'));
  }
  ok(await a.from('course_unlock_schedules').insert({ course_id: course.id, unlock_interval_days: 2, lessons_per_unlock: 1, start_delay_days: 0 }), 'schedule');
  ok(await a.from('course_access').insert({ user_id: learner.id, course_id: course.id, granted_by: admin.id }), 'access');
});

test('a locked lesson is refused by REST and storage; the unlocked one is served', async () => {
  const l = learner.supabase;
  const [open, locked] = lessons;

  const listed = ok(await l.from('course_content').select('id').eq('course_id', course.id).order('order_index'), 'list');
  assert.deepEqual(listed.map((r) => r.id), [open.id]);
  assert.equal(ok(await l.from('course_content').select('*').eq('id', locked.id).maybeSingle(), 'maybeSingle'), null);
  const single = await l.from('course_content').select('*').eq('id', locked.id).single();
  assert.equal(single.error.code, 'PGRST116');
  assert.equal(single.status, 406);
  assert.deepEqual(ok(await l.rpc('get_visible_course_content', { user_id: learner.id, course_id: course.id }), 'rpc').map((r) => r.id), [open.id]);

  const files = l.storage.from('course-content');
  const download = await files.download(open.file_path);
  assert.equal(download.error, null);
  assert.equal(await download.data.text(), '%PDF-1.4 unit 0');
  const signed = ok(await files.createSignedUrl(open.file_path, 60), 'sign the open lesson');
  assert.equal((await fetch(signed.signedUrl)).status, 200);

  const refused = await files.download(locked.file_path);
  assert.equal(refused.data, null);
  assert.equal(refused.error.status, 400);  // storage-api: an object the caller cannot see
  // The raw answer, as storage-api gives it for an object the caller's RLS hides.
  const { data: { session } } = await l.auth.getSession();
  const raw = await fetch(`${env.url}/storage/v1/object/authenticated/course-content/${locked.file_path}`,
    { headers: { apikey: env.anonKey, authorization: `Bearer ${session.access_token}` } });
  assert.equal(raw.status, 400);
  assert.deepEqual(await raw.json(), { statusCode: '404', code: 'NoSuchKey', error: 'not_found', message: 'Object not found' });
  const noUrl = await files.createSignedUrl(locked.file_path, 60);
  assert.equal(noUrl.data, null);
  assert.match(noUrl.error.message, /not found/i);
  const many = ok(await files.createSignedUrls([open.file_path, locked.file_path], 60), 'sign many');
  assert.ok(many[0].signedUrl);
  assert.equal(many[1].signedUrl, null);
  assert.ok(many[1].error);
  const listing = ok(await files.list(course.id), 'list files');
  assert.deepEqual(listing.map((f) => f.name), ['0_unit.pdf']);
});

test('the lesson opens when the schedule says so', async () => {
  const l = learner.supabase;
  await accessStartedDaysAgo(2);
  const listed = ok(await l.from('course_content').select('id').eq('course_id', course.id).order('order_index'), 'list');
  assert.deepEqual(listed.map((r) => r.id), [lessons[0].id, lessons[1].id]);
  assert.equal((await l.storage.from('course-content').download(lessons[1].file_path)).error, null);
  assert.equal((await l.storage.from('course-content').download(lessons[2].file_path)).error.status, 400);
  await accessStartedDaysAgo(0);
});

test('the outline lists every lesson, locked ones with the date they open and no file', async () => {
  const since = await accessStartedDaysAgo(1);
  const outline = ok(await learner.supabase.rpc('get_course_outline', { course_id: course.id }), 'outline');
  assert.deepEqual(outline.map((o) => [o.id, o.title, o.lesson_position, o.unlocked]),
    lessons.map((c, i) => [c.id, c.title, i + 1, i === 0]));
  assert.equal(outline[0].unlocks_at, null);
  outline.slice(1).forEach((o, i) => assert.equal(new Date(o.unlocks_at).getTime(), new Date(since).getTime() + 2 * (i + 1) * DAY));
  for (const row of outline) assert.deepEqual(Object.keys(row).sort(), ['file_type', 'id', 'lesson_position', 'title', 'unlocked', 'unlocks_at']);
  // Without course access: nothing of a private course.
  const stranger = await signedIn('unlock-stranger');
  assert.deepEqual(ok(await stranger.supabase.rpc('get_course_outline', { course_id: course.id }), 'stranger'), []);
  // A lesson opened by its address: locked with its date, no access, or not found.
  assert.deepEqual(ok(await learner.supabase.rpc('get_lesson_status', { content_id: lessons[1].id }), 'status'),
    [{ course_id: course.id, unlocked: false, unlocks_at: outline[1].unlocks_at }]);
  assert.deepEqual(ok(await stranger.supabase.rpc('get_lesson_status', { content_id: lessons[1].id }), 'status'),
    [{ course_id: course.id, unlocked: null, unlocks_at: null }]);
  assert.deepEqual(ok(await learner.supabase.rpc('get_lesson_status', { content_id: crypto.randomUUID() }), 'status'), []);
  assert.equal((await client().rpc('get_lesson_status', { content_id: lessons[1].id })).error.code, '42501');
  await accessStartedDaysAgo(0);
});

test('the admin preview counts exactly what the server grants', async () => {
  const cases = [
    // interval, per unlock, delay, days since access
    [2, 1, 0, 0], [2, 1, 0, 1], [2, 1, 0, 2], [2, 1, 0, 5],
    [3, 2, 0, 3], [1, 1, 3, 2], [1, 1, 3, 3], [7, 3, 1, 8], [1, 10, 0, 0], [365, 1, 365, 100],
  ];
  for (const [interval, perUnlock, delay, days] of cases) {
    await setSchedule({ unlock_interval_days: interval, lessons_per_unlock: perUnlock, start_delay_days: delay });
    await accessStartedDaysAgo(days);
    const preview = ok(await admin.supabase.rpc('preview_unlock_schedule', {
      course_id: course.id, unlock_interval_days: interval, lessons_per_unlock: perUnlock, start_delay_days: delay, days_since_access: days,
    }), 'preview');
    const granted = ok(await learner.supabase.rpc('get_user_unlocked_content', { user_id_param: learner.id, course_id_param: course.id }), 'unlocked');
    const readable = ok(await learner.supabase.from('course_content').select('id').eq('course_id', course.id), 'readable');
    assert.equal(preview, granted.length, `preview of ${[interval, perUnlock, delay, days]}`);
    assert.equal(readable.length, granted.length);
  }
  await setSchedule({ unlock_interval_days: 2, lessons_per_unlock: 1, start_delay_days: 0 });
  await accessStartedDaysAgo(0);
});

test('the preview is for admins, and bad values are refused in the service format', async () => {
  const args = { course_id: course.id, unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0, days_since_access: 0 };
  const byLearner = await learner.supabase.rpc('preview_unlock_schedule', args);
  assert.equal(byLearner.error.code, '42501');
  assert.equal(byLearner.status, 403);
  const byVisitor = await client().rpc('preview_unlock_schedule', args);
  assert.equal(byVisitor.error.code, '42501');
  for (const bad of [{ unlock_interval_days: 0 }, { lessons_per_unlock: -1 }, { start_delay_days: 366 }, { days_since_access: -1 }]) {
    const res = await admin.supabase.rpc('preview_unlock_schedule', { ...args, ...bad });
    assert.equal(res.error.code, '22023', JSON.stringify(bad));
    assert.equal(res.status, 400);
  }
  const notANumber = await admin.supabase.rpc('preview_unlock_schedule', { ...args, days_since_access: 'abc' });
  assert.equal(notANumber.status, 400);
});

test('the database refuses schedule values out of bounds', async () => {
  for (const bad of [{ unlock_interval_days: 0 }, { lessons_per_unlock: 0 }, { start_delay_days: -1 },
    { unlock_interval_days: 366 }, { lessons_per_unlock: 101 }, { start_delay_days: 366 }]) {
    const res = await admin.supabase.from('course_unlock_schedules').update(bad).eq('course_id', course.id);
    assert.equal(res.error?.code, '23514', JSON.stringify(bad));
  }
});
