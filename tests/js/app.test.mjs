// The learning site's rules through /rest/v1 and /storage/v1 with the unmodified supabase-js:
// what a learner may not do, the same call succeeding for an admin.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { client, serviceClient, uniqueEmail } from './support.mjs';

const PASSWORD = 'app-password-1';

async function signedIn(prefix, data = {}) {
  const supabase = client();
  const email = uniqueEmail(prefix);
  const { data: signup, error } = await supabase.auth.signUp({
    email, password: PASSWORD,
    options: { data: { full_name: `${prefix} name`, country: 'France', whatsapp_number: '+33600000000', ...data } },
  });
  assert.equal(error, null);
  return { supabase, id: signup.user.id, email };
}

let admin, learner, other, course, lesson, lessonPath;

before(async () => {
  admin = await signedIn('app-admin');
  learner = await signedIn('app-learner');
  other = await signedIn('app-other');
  const promoted = await serviceClient().from('profiles').update({ role: 'admin' }).eq('id', admin.id).select('role');
  assert.deepEqual(promoted.data, [{ role: 'admin' }]);

  const created = await admin.supabase.from('courses')
    .insert({ title: 'JS private course', visibility: 'private', created_by: admin.id }).select().single();
  assert.equal(created.error, null);
  course = created.data;
  lessonPath = `${course.id}/${Date.now()}_lesson.pdf`;
  const upload = await admin.supabase.storage.from('course-content')
    .upload(lessonPath, new Blob(['%PDF-1.4 demo'], { type: 'application/pdf' }), { contentType: 'application/pdf' });
  assert.equal(upload.error, null);
  const inserted = await admin.supabase.from('course_content')
    .insert({ course_id: course.id, title: 'Lesson one', file_type: 'pdf', file_path: lessonPath, created_by: admin.id })
    .select().single();
  assert.equal(inserted.error, null);
  lesson = inserted.data;
  assert.equal(lesson.order_index, 0);
});

test('a learner cannot promote themselves; an admin can promote', async () => {
  const { error } = await learner.supabase.from('profiles').update({ role: 'admin' }).eq('id', learner.id);
  assert.equal(error.code, '42501');
  const { data } = await learner.supabase.from('profiles').select('role').eq('id', learner.id).single();
  assert.equal(data.role, 'user');
  const target = await signedIn('app-promoted');
  const promoted = await admin.supabase.from('profiles').update({ role: 'admin' }).eq('id', target.id).select('role');
  assert.deepEqual(promoted.data, [{ role: 'admin' }]);
});

test('a learner cannot mark themselves paid; an admin can', async () => {
  const { error } = await learner.supabase.from('profiles')
    .update({ paid: true, date_paid: new Date().toISOString(), expire_date: null }).eq('id', learner.id);
  assert.equal(error.code, '42501');
  const ok = await admin.supabase.from('profiles')
    .update({ paid: true, date_paid: new Date().toISOString() }).eq('id', other.id).select('paid');
  assert.deepEqual(ok.data, [{ paid: true }]);
});

test("a learner edits their own profile but never reads another learner's email", async () => {
  const own = await learner.supabase.from('profiles')
    .update({ full_name: 'Nouveau Nom', country: 'Bénin', student_role: 'avancé' }).eq('id', learner.id).select('full_name, email');
  assert.deepEqual(own.data, [{ full_name: 'Nouveau Nom', email: learner.email }]);
  const { data } = await learner.supabase.from('profiles').select('email, whatsapp_number').eq('id', other.id);
  assert.ok(data.length === 0 || (data[0].email === null && data[0].whatsapp_number === null));
  const asAdmin = await admin.supabase.from('profiles').select('email').eq('id', other.id).single();
  assert.equal(asAdmin.data.email, other.email);
});

test("a private course's lesson and file stay closed without access", async () => {
  const rows = await learner.supabase.from('course_content').select('*').eq('course_id', course.id);
  assert.deepEqual(rows.data, []);
  const rpc = await learner.supabase.rpc('get_visible_course_content', { user_id: learner.id, course_id: course.id });
  assert.deepEqual(rpc.data, []);
  const access = await learner.supabase.rpc('user_has_course_access', { user_id: learner.id, course_id: course.id });
  assert.equal(access.data, false);
  const signed = await learner.supabase.storage.from('course-content').createSignedUrl(lessonPath, 3600);
  assert.ok(signed.error);
  const download = await learner.supabase.storage.from('course-content').download(lessonPath);
  assert.ok(download.error);

  const adminRows = await admin.supabase.from('course_content').select('id').eq('course_id', course.id);
  assert.deepEqual(adminRows.data, [{ id: lesson.id }]);
  const adminSigned = await admin.supabase.storage.from('course-content').createSignedUrl(lessonPath, 3600);
  assert.equal(adminSigned.error, null);
  assert.equal((await fetch(adminSigned.data.signedUrl)).status, 200);
});

test('granting the course opens lesson and file; a duplicate grant is 23505', async () => {
  const grantee = await signedIn('app-grantee');
  const grant = await admin.supabase.from('course_access').insert({ user_id: grantee.id, course_id: course.id, granted_by: admin.id });
  assert.equal(grant.error, null);
  const again = await admin.supabase.from('course_access').insert({ user_id: grantee.id, course_id: course.id, granted_by: admin.id });
  assert.equal(again.error.code, '23505');
  const rows = await grantee.supabase.from('course_content').select('id').eq('course_id', course.id);
  assert.deepEqual(rows.data, [{ id: lesson.id }]);
  const signed = await grantee.supabase.storage.from('course-content').createSignedUrl(lessonPath, 3600);
  assert.equal(signed.error, null);
});

test("a learner cannot delete an admin's message; the admin can", async () => {
  const sent = await admin.supabase.from('private_messages')
    .insert({ sender_id: admin.id, recipient_id: learner.id, content: 'Bonjour !' }).select().single();
  assert.equal(sent.error, null);
  const attempt = await learner.supabase.from('private_messages').delete().eq('id', sent.data.id).select();
  assert.deepEqual(attempt.data, []);
  const read = await learner.supabase.from('private_messages').update({ is_read: true }).eq('id', sent.data.id).select('is_read');
  assert.deepEqual(read.data, [{ is_read: true }]);
  const removed = await admin.supabase.from('private_messages').delete().eq('id', sent.data.id).select('id');
  assert.deepEqual(removed.data, [{ id: sent.data.id }]);
});

test('a learner writes only to admins', async () => {
  const toPeer = await learner.supabase.from('private_messages').insert({ sender_id: learner.id, recipient_id: other.id, content: 'Salut' });
  assert.equal(toPeer.error.code, '42501');
  const toAdmin = await learner.supabase.from('private_messages').insert({ sender_id: learner.id, recipient_id: admin.id, content: 'Question' });
  assert.equal(toAdmin.error, null);
});

test("a learner cannot end another user's session; an admin can, and that device is signed out", async () => {
  const device = await signedIn('app-device');
  const recorded = await device.supabase.from('user_sessions')
    .insert({ user_id: device.id, device_name: 'Chrome on Linux', ip_address: '203.0.113.7', last_active: new Date().toISOString() })
    .select().single();
  assert.equal(recorded.error, null);
  const attempt = await learner.supabase.from('user_sessions').update({ is_current: false }).eq('id', recorded.data.id).select();
  assert.deepEqual(attempt.data, []);
  assert.equal((await device.supabase.auth.refreshSession()).error, null);

  const ended = await admin.supabase.from('user_sessions').update({ is_current: false }).eq('id', recorded.data.id).select('is_current');
  assert.deepEqual(ended.data, [{ is_current: false }]);
  const refreshed = await device.supabase.auth.refreshSession();
  assert.ok(refreshed.error, 'the ended device can no longer refresh');
});

test('book PDFs need access; covers are public', async () => {
  const name = `${Date.now()}_book.pdf`;
  const up = await admin.supabase.storage.from('books').upload(name, new Blob(['%PDF-1.4 book'], { type: 'application/pdf' }),
    { contentType: 'application/pdf', cacheControl: '3600', upsert: false });
  assert.equal(up.error, null);
  const book = await admin.supabase.from('books').insert({ title: 'JS book', pages: 1, file_path: name, created_by: admin.id }).select().single();
  assert.equal(book.error, null);
  const denied = await learner.supabase.storage.from('books').createSignedUrl(name, 3600);
  assert.ok(denied.error);
  const noAccess = await learner.supabase.rpc('user_has_book_access', { user_id: learner.id, book_id: book.data.id });
  assert.equal(noAccess.data, false);
  await admin.supabase.from('user_book_access').insert({ user_id: learner.id, book_id: book.data.id, granted_by: admin.id });
  const allowed = await learner.supabase.storage.from('books').createSignedUrl(name, 3600);
  assert.equal(allowed.error, null);
  const learnerUpload = await learner.supabase.storage.from('covers').upload(`x-${Date.now()}.jpg`, new Blob(['x'], { type: 'image/jpeg' }));
  assert.ok(learnerUpload.error, 'only admins upload');
});
