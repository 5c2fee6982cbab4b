// Every call of the spec's section 7 (books, profiles, courses and content, unlocking and
// progress, comments, messages, sessions), made with the unmodified supabase-js exactly as
// the spec shapes it: same tables, columns, parameter names, filters and orderings.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { client, serviceClient, uniqueEmail } from './support.mjs';

const PASSWORD = 'app-calls-123';

async function signedIn(prefix, data = {}) {
  const supabase = client();
  const email = uniqueEmail(prefix);
  const { data: signup, error } = await supabase.auth.signUp({
    email, password: PASSWORD,
    options: { data: { full_name: `${prefix} name`, country: 'Sénégal', whatsapp_number: '+221770000000', student_role: 'avancé', ...data } },
  });
  assert.equal(error, null);
  return { supabase, id: signup.user.id, email };
}

function ok(result, what) {
  assert.equal(result.error, null, `${what}: ${JSON.stringify(result.error)}`);
  return result.data;
}

const pdf = (text) => new Blob([`%PDF-1.4 ${text}`], { type: 'application/pdf' });
const jpeg = () => new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])], { type: 'image/jpeg' });

let admin, learner, other, visitor;

before(async () => {
  admin = await signedIn('calls-admin');
  learner = await signedIn('calls-learner');
  other = await signedIn('calls-other');
  visitor = client();
  ok(await serviceClient().from('profiles').update({ role: 'admin' }).eq('id', admin.id), 'promote');
});

test('7.2 books: upload, list, read, grant, check, download, revoke, delete', async () => {
  const a = admin.supabase;
  const stamp = Date.now();
  const filePath = `${stamp}_Grammaire_anglaise.pdf`;
  const coverPath = `books/${stamp}_Grammaire_anglaise.jpg`;
  ok(await a.storage.from('books').upload(filePath, pdf('book'), { cacheControl: '3600', upsert: false, contentType: 'application/pdf' }), 'pdf upload');
  ok(await a.storage.from('covers').upload(coverPath, jpeg(), { cacheControl: '3600', upsert: false, contentType: 'image/jpeg' }), 'cover upload');
  const book = ok(await a.from('books').insert({
    title: 'Grammaire anglaise', description: 'Règles', pages: 12, file_size: 14, file_path: filePath, cover_url: coverPath, created_by: admin.id,
  }).select().single(), 'insert book');

  const shelf = ok(await visitor.from('books').select('*').order('created_at', { ascending: false }), 'visitor shelf');
  assert.ok(shelf.some((b) => b.id === book.id));
  ok(await a.from('books').select('*').order('title'), 'admin list by title');
  assert.deepEqual(ok(await learner.supabase.from('books').select('file_path, cover_url').eq('id', book.id).single(), 'by id'),
    { file_path: filePath, cover_url: coverPath });
  assert.deepEqual(ok(await learner.supabase.from('books').select('file_path, title').eq('id', book.id).single(), 'by id'),
    { file_path: filePath, title: 'Grammaire anglaise' });
  const cover = visitor.storage.from('covers').getPublicUrl(coverPath);
  assert.equal((await fetch(cover.data.publicUrl)).status, 200);

  const l = learner.supabase;
  assert.equal(ok(await l.rpc('user_has_book_access', { user_id: learner.id, book_id: book.id }), 'rpc'), false);
  assert.equal(ok(await l.rpc('user_has_full_access', { user_id: learner.id }), 'rpc'), false);
  assert.ok((await l.storage.from('books').createSignedUrl(filePath, 3600)).error);

  ok(await a.from('user_book_access').insert({ user_id: learner.id, book_id: book.id, granted_by: admin.id }), 'grant');
  const again = await a.from('user_book_access').insert({ user_id: learner.id, book_id: book.id, granted_by: admin.id });
  assert.equal(again.error.code, '23505'); // 'User already has access to this book'
  assert.equal(ok(await l.rpc('user_has_book_access', { user_id: learner.id, book_id: book.id }), 'rpc'), true);
  assert.deepEqual(ok(await l.from('user_book_access').select('book_id, books(id, title)').eq('user_id', learner.id), 'own grants'),
    [{ book_id: book.id, books: { id: book.id, title: 'Grammaire anglaise' } }]);
  const signed = ok(await l.storage.from('books').createSignedUrl(filePath, 3600), 'signed url');
  assert.equal(await (await fetch(signed.signedUrl)).text(), '%PDF-1.4 book');

  ok(await a.from('user_book_access').delete().eq('user_id', learner.id).eq('book_id', book.id), 'revoke one');
  assert.equal(ok(await l.rpc('user_has_book_access', { user_id: learner.id, book_id: book.id }), 'rpc'), false);

  ok(await a.from('full_access_users').insert({ user_id: other.id, granted_by: admin.id }), 'full access');
  assert.deepEqual(ok(await other.supabase.from('full_access_users').select('*').eq('user_id', other.id), 'own row').length, 1);
  assert.equal(ok(await other.supabase.rpc('user_has_full_access', { user_id: other.id }), 'rpc'), true);
  assert.equal(ok(await other.supabase.rpc('user_has_book_access', { user_id: other.id, book_id: book.id }), 'rpc'), true);
  assert.equal(ok(await l.rpc('user_has_full_access', { user_id: other.id }), 'probe'), false); // no probing of others
  ok(await a.from('full_access_users').delete().eq('user_id', other.id), 'end full access');

  ok(await a.from('user_book_access').insert({ user_id: other.id, book_id: book.id, granted_by: admin.id }), 'grant other');
  ok(await a.from('user_book_access').delete().eq('book_id', book.id), 'revoke all of the book');
  ok(await a.from('books').delete().eq('id', book.id), 'delete book');
  assert.ok((await a.storage.from('books').download(filePath)).error, 'the PDF went with the book');
  assert.equal((await fetch(cover.data.publicUrl)).status, 400, 'the cover went with the book');
});

test('7.3 profiles: reads and the five PATCH shapes', async () => {
  const l = learner.supabase;
  const a = admin.supabase;
  assert.deepEqual(ok(await l.from('profiles').select('role').eq('id', learner.id).single(), 'role'), { role: 'user' });
  const own = ok(await l.from('profiles').select('*').eq('id', learner.id).single(), 'own profile');
  assert.equal(own.email, learner.email);
  assert.equal(own.student_role, 'avancé');
  const all = ok(await a.from('profiles').select('*').order('created_at', { ascending: false }), 'admin list');
  assert.ok(all.findIndex((p) => p.id === other.id) < all.findIndex((p) => p.id === learner.id));
  const some = ok(await a.from('profiles').select('id, email, full_name').in('id', [learner.id, other.id]), 'by ids');
  assert.deepEqual(new Set(some.map((p) => p.email)), new Set([learner.email, other.email]));
  assert.deepEqual(ok(await l.from('profiles').select('full_name, role').eq('id', admin.id).single(), 'author'),
    { full_name: 'calls-admin name', role: 'admin' });
  assert.deepEqual(ok(await l.from('profiles').select('id, full_name').eq('id', admin.id), 'peer'),
    [{ id: admin.id, full_name: 'calls-admin name' }]);
  const nonAdmins = ok(await a.from('profiles').select('*').neq('role', 'admin'), 'non-admins');
  assert.ok(nonAdmins.some((p) => p.id === learner.id) && !nonAdmins.some((p) => p.id === admin.id));

  ok(await l.from('profiles').update({ country: 'Bénin', whatsapp_number: '+22990000000', student_role: 'intermédiaire' }).eq('id', learner.id), 'own details');
  ok(await l.from('profiles').update({ full_name: 'Awa D.' }).eq('id', learner.id), 'own name');
  const edited = ok(await a.from('profiles')
    .update({ full_name: 'Awa Diallo', country: null, whatsapp_number: '+221771234567', student_role: 'debutant', agent: true })
    .eq('id', learner.id).select('full_name, country, agent').single(), 'admin edit');
  assert.deepEqual(edited, { full_name: 'Awa Diallo', country: null, agent: true });
  const expire = new Date(Date.now() + 30 * 86400e3).toISOString();
  const paid = ok(await a.from('profiles').update({ paid: true, date_paid: new Date().toISOString(), expire_date: expire })
    .eq('id', learner.id).select('paid, expire_date').single(), 'payment');
  assert.equal(paid.paid, true);
  assert.equal(new Date(paid.expire_date).toISOString(), expire);
  ok(await a.from('profiles').update({ paid: false, date_paid: null, expire_date: null }).eq('id', learner.id), 'unpaid');
  const promoted = await signedIn('calls-promoted');
  assert.deepEqual(ok(await a.from('profiles').update({ role: 'admin' }).eq('id', promoted.id).select('role').single(), 'promote'), { role: 'admin' });
  assert.deepEqual(ok(await a.from('profiles').update({ role: 'user' }).eq('id', promoted.id).select('role').single(), 'demote'), { role: 'user' });
  assert.equal((await l.from('profiles').update({ agent: false }).eq('id', learner.id)).error.code, '42501');
});

async function newCourse(visibility, title = `Calls ${visibility} course`) {
  const cover = `course-covers/${Math.random().toString(36).slice(2)}-${Date.now()}.jpg`;
  ok(await admin.supabase.storage.from('covers').upload(cover, jpeg(), { contentType: 'image/jpeg' }), 'course cover');
  const { data: { publicUrl } } = admin.supabase.storage.from('covers').getPublicUrl(cover);
  return ok(await admin.supabase.from('courses')
    .insert({ title, description: 'Description', created_by: admin.id, visibility, cover_url: publicUrl }).select().single(), 'course');
}

async function addLesson(course, title, kind = 'pdf') {
  const a = admin.supabase;
  const last = ok(await a.from('course_content').select('order_index').eq('course_id', course.id)
    .order('order_index', { ascending: false }).limit(1), 'highest order_index');
  const order_index = last.length ? last[0].order_index + 1 : 0;
  let file_path = null;
  if (kind !== 'video') {
    file_path = `${course.id}/${Date.now()}_${title.replaceAll(' ', '_')}.pdf`;
    ok(await a.storage.from('course-content').upload(file_path, pdf(title), { cacheControl: '3600', contentType: 'application/pdf' }), 'lesson file');
  }
  return ok(await a.from('course_content').insert({
    course_id: course.id, title, description: null, file_path, file_type: kind, file_size: kind === 'video' ? null : 20,
    video_embed_url: kind === 'video' ? 'https://iframe.mediadelivery.net/embed/1/2' : null, created_by: admin.id, order_index,
  }).select().single(), 'lesson');
}

test('7.4 courses and content: create, list, access, content upload, download, edit, delete', async () => {
  const a = admin.supabase;
  const l = learner.supabase;
  const pub = await newCourse('public');
  const priv = await newCourse('private');
  assert.equal((await fetch(pub.cover_url)).status, 200, 'the cover public URL works for everyone');
  ok(await a.from('courses').update({ title: 'Calls private course', description: 'Nouvelle', visibility: 'private', cover_url: priv.cover_url }).eq('id', priv.id), 'patch');

  const publicList = ok(await visitor.from('courses').select('*').eq('visibility', 'public').order('created_at', { ascending: false }), 'visitor list');
  assert.ok(publicList.some((c) => c.id === pub.id) && !publicList.some((c) => c.id === priv.id));
  const visible = ok(await l.rpc('get_visible_courses', { user_id: learner.id }), 'get_visible_courses');
  assert.ok(visible.some((c) => c.id === priv.id && c.visibility === 'private'));
  ok(await l.from('courses').select('*'), 'all courses');
  assert.equal(ok(await l.from('courses').select('*').eq('id', priv.id).single(), 'one').title, 'Calls private course');
  assert.equal(ok(await l.rpc('user_has_course_access', { user_id: learner.id, course_id: pub.id }), 'rpc'), true);
  assert.equal(ok(await l.rpc('user_has_course_access', { user_id: learner.id, course_id: priv.id }), 'rpc'), false);

  const first = await addLesson(priv, 'Lesson one');
  const second = await addLesson(priv, 'Lesson two', 'video');
  assert.deepEqual([first.order_index, second.order_index], [0, 1]);
  const pubLesson = await addLesson(pub, 'Public lesson');

  assert.deepEqual(ok(await visitor.from('course_content').select('*').eq('course_id', pub.id).order('created_at', { ascending: false }), 'visitor lessons')
    .map((c) => c.id), [pubLesson.id]);
  assert.deepEqual(ok(await visitor.from('course_content').select('*').eq('course_id', priv.id), 'visitor private'), []);
  assert.deepEqual(ok(await l.rpc('get_visible_course_content', { user_id: learner.id, course_id: priv.id }), 'rpc'), []);

  ok(await a.from('course_access').insert({ user_id: learner.id, course_id: priv.id, granted_by: admin.id }), 'grant course');
  assert.equal((await a.from('course_access').insert({ user_id: learner.id, course_id: priv.id, granted_by: admin.id })).error.code, '23505');
  assert.deepEqual(ok(await l.from('course_access').select('course_id, courses(id, title)').eq('user_id', learner.id), 'own access'),
    [{ course_id: priv.id, courses: { id: priv.id, title: 'Calls private course' } }]);
  assert.deepEqual(ok(await l.rpc('get_visible_course_content', { user_id: learner.id, course_id: priv.id }), 'rpc').map((c) => c.id),
    [first.id, second.id]);
  assert.deepEqual(ok(await a.from('course_content').select('*').eq('course_id', priv.id).order('order_index').order('created_at'), 'admin order')
    .map((c) => c.id), [first.id, second.id]);
  const short = ok(await l.from('course_content').select('id, title, created_at, file_type').eq('course_id', priv.id).order('created_at'), 'short');
  assert.deepEqual(Object.keys(short[0]).sort(), ['created_at', 'file_type', 'id', 'title']);
  const joined = ok(await l.from('course_content').select('*, courses(*)').eq('id', first.id).single(), 'joined');
  assert.equal(joined.courses.id, priv.id);

  const download = ok(await l.from('course_content').select('file_path, title').eq('id', first.id).single(), 'download row');
  const signed = ok(await l.storage.from('course-content').createSignedUrl(download.file_path, 3600), 'signed');
  assert.equal(await (await fetch(signed.signedUrl)).text(), '%PDF-1.4 Lesson one');

  ok(await a.from('course_content').update({ title: 'Lesson 1', description: 'Intro' }).eq('id', first.id), 'patch lesson');
  const { file_path } = ok(await a.from('course_content').select('file_path').eq('id', first.id).single(), 'file path');
  ok(await a.storage.from('course-content').remove([file_path]), 'remove file');
  ok(await a.from('course_content').delete().eq('id', first.id), 'delete lesson');

  ok(await a.from('course_access').delete().eq('user_id', learner.id).eq('course_id', priv.id), 'revoke course');
  assert.equal(ok(await l.rpc('user_has_course_access', { user_id: learner.id, course_id: priv.id }), 'rpc'), false);
  const pubFile = pubLesson.file_path;
  ok(await a.from('courses').delete().eq('id', pub.id), 'delete course');
  assert.ok((await a.storage.from('course-content').download(pubFile)).error, "the course's lesson files went with it");
});

test('7.5 unlock schedule, single grants, progress and views', async () => {
  const a = admin.supabase;
  const l = learner.supabase;
  const course = await newCourse('private', 'Calls scheduled course');
  const lessons = [];
  for (const title of ['Unit one', 'Unit two', 'Unit three']) lessons.push(await addLesson(course, title));

  const none = await a.from('course_unlock_schedules').select('*').eq('course_id', course.id).eq('is_active', true).single();
  assert.equal(none.error.code, 'PGRST116');
  const schedule = ok(await a.from('course_unlock_schedules')
    .insert({ course_id: course.id, unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 }).select().single(), 'create schedule');
  assert.equal((await a.from('course_unlock_schedules').insert({ course_id: course.id })).error.code, '23505');
  assert.equal((await a.from('course_unlock_schedules').update({ lessons_per_unlock: 0 }).eq('id', schedule.id)).error.code, '23514');
  ok(await a.from('course_unlock_schedules').update({ unlock_interval_days: 7, lessons_per_unlock: 2, start_delay_days: 0 }).eq('id', schedule.id), 'update schedule');
  assert.equal(ok(await l.from('course_unlock_schedules').select('*').eq('course_id', course.id).eq('is_active', true).single(), 'learner reads').lessons_per_unlock, 2);

  // No course access: only lessons granted one by one are unlocked.
  assert.deepEqual(ok(await l.rpc('get_user_unlocked_content', { user_id_param: learner.id, course_id_param: course.id }), 'rpc'), []);
  const unlockedAt = new Date().toISOString();
  ok(await a.from('user_content_progress').upsert({ user_id: learner.id, course_id: course.id, content_id: lessons[2].id, unlocked_at: unlockedAt }), 'grant single');
  ok(await a.from('user_content_progress').upsert({ user_id: learner.id, course_id: course.id, content_id: lessons[2].id, unlocked_at: unlockedAt }), 'grant again (upsert)');
  assert.deepEqual(ok(await l.rpc('get_user_unlocked_content', { user_id_param: learner.id, course_id_param: course.id }), 'rpc').map((c) => c.id), [lessons[2].id]);
  assert.deepEqual(ok(await l.from('user_content_progress').select('content_id').eq('user_id', learner.id).eq('course_id', course.id), 'progress'),
    [{ content_id: lessons[2].id }]);
  const bulk = await a.from('user_content_progress').insert(lessons.map((c) => ({ user_id: learner.id, course_id: course.id, content_id: c.id })));
  assert.equal(bulk.error.code, '23505'); // ignored by the UI
  for (const c of lessons.slice(0, 2)) {
    ok(await a.from('user_content_progress').insert({ user_id: learner.id, course_id: course.id, content_id: c.id }), 'bulk grant one');
  }
  assert.equal(ok(await l.from('user_content_progress').select('content_id').eq('user_id', learner.id), 'all').length, 3);
  for (const c of lessons) ok(await a.from('user_content_progress').delete().eq('user_id', learner.id).eq('content_id', c.id), 'bulk revoke');

  // With course access and the active schedule: the first 2 lessons now.
  ok(await a.from('course_access').insert({ user_id: learner.id, course_id: course.id, granted_by: admin.id }), 'access');
  assert.deepEqual(ok(await l.rpc('get_user_unlocked_content', { user_id_param: learner.id, course_id_param: course.id }), 'rpc').map((c) => c.id),
    [lessons[0].id, lessons[1].id]);
  assert.equal(ok(await a.rpc('get_user_unlocked_content', { user_id_param: admin.id, course_id_param: course.id }), 'admin').length, 3);
  assert.deepEqual(ok(await other.supabase.rpc('get_user_unlocked_content', { user_id_param: learner.id, course_id_param: course.id }), 'probe'), []);

  ok(await l.from('content_views').insert({ user_id: learner.id, content_id: lessons[0].id }), 'view');
  assert.equal((await l.from('content_views').insert({ user_id: learner.id, content_id: lessons[0].id })).error.code, '23505');
  assert.deepEqual(ok(await l.from('content_views').select('content_id').eq('user_id', learner.id), 'views'), [{ content_id: lessons[0].id }]);
});

test('7.6 comments and replies', async () => {
  const course = await newCourse('public', 'Calls comments course');
  const lesson = await addLesson(course, 'Commented lesson', 'video');
  const l = learner.supabase;
  const comment = ok(await l.from('content_comments').insert({ content: 'Une question', user_id: learner.id, content_id: lesson.id }).select().single(), 'comment');
  ok(await other.supabase.from('content_comments').insert({ content: 'Moi aussi', user_id: other.id, content_id: lesson.id }), 'second comment');
  const reply = ok(await admin.supabase.from('comment_replies').insert({ content: 'La réponse', user_id: admin.id, comment_id: comment.id }).select().single(), 'reply');
  const list = ok(await visitor.from('content_comments').select('*').eq('content_id', lesson.id).order('created_at', { ascending: true }), 'list');
  assert.deepEqual(list.map((c) => c.content), ['Une question', 'Moi aussi']);
  assert.deepEqual(ok(await l.from('comment_replies').select('*').in('comment_id', list.map((c) => c.id)), 'replies').map((r) => r.id), [reply.id]);
  assert.equal((await l.from('content_comments').insert({ content: '   ', user_id: learner.id, content_id: lesson.id })).error.code, '23514');
  assert.deepEqual(ok(await l.from('comment_replies').delete().eq('id', reply.id).select(), 'not the author'), []);
  ok(await admin.supabase.from('comment_replies').delete().eq('id', reply.id), 'admin deletes reply');
  assert.deepEqual(ok(await l.from('content_comments').delete().eq('id', comment.id).select('id'), 'author deletes'), [{ id: comment.id }]);
});

test('7.7 messages: unread, conversation, mark read, send, delete', async () => {
  const l = learner.supabase;
  const a = admin.supabase;
  const mine = ok(await l.from('private_messages').insert({ sender_id: learner.id, recipient_id: admin.id, content: 'Bonjour' }).select().single(), 'send');
  const replies = ok(await a.from('private_messages').insert([
    { sender_id: admin.id, recipient_id: learner.id, content: 'Bienvenue' },
    { sender_id: admin.id, recipient_id: learner.id, content: 'Votre accès est ouvert' },
  ]).select(), 'admin sends');
  const unread = ok(await l.from('private_messages').select('*').eq('recipient_id', learner.id).eq('is_read', false), 'unread');
  assert.equal(unread.length, 2);
  const conversation = ok(await l.from('private_messages').select('*')
    .or(`and(sender_id.eq.${learner.id},recipient_id.eq.${admin.id}),and(sender_id.eq.${admin.id},recipient_id.eq.${learner.id})`)
    .order('created_at', { ascending: true }), 'conversation');
  assert.deepEqual(conversation.map((m) => m.id), [mine.id, ...replies.map((m) => m.id)]);
  const read = ok(await l.from('private_messages').update({ is_read: true }).in('id', unread.map((m) => m.id)).select('is_read'), 'mark read');
  assert.deepEqual(read, [{ is_read: true }, { is_read: true }]);
  assert.deepEqual(ok(await l.from('private_messages').select('*').eq('recipient_id', learner.id).eq('is_read', false), 'none unread'), []);
  assert.deepEqual(ok(await l.from('private_messages').update({ is_read: true }).eq('id', mine.id).select(), 'only the recipient marks'), []);
  assert.deepEqual(ok(await a.from('private_messages').update({ is_read: true }).eq('id', mine.id).select('is_read'), 'the admin reads'), [{ is_read: true }]);
  ok(await l.from('private_messages').delete().eq('id', mine.id), 'delete own');
  assert.deepEqual(ok(await l.from('private_messages').delete().eq('id', replies[0].id).select(), "not an admin's"), []);
  ok(await a.from('private_messages').delete().eq('id', replies[0].id), 'admin deletes');
});

test('7.8 sessions: record, list, heartbeat, status, terminate', async () => {
  const device = await signedIn('calls-device');
  const d = device.supabase;
  const row = ok(await d.from('user_sessions')
    .insert({ user_id: device.id, device_name: 'Firefox on Linux', ip_address: 'Unknown', last_active: new Date().toISOString() })
    .select('id').single(), 'record');
  const mine = ok(await d.from('user_sessions').select('*').eq('user_id', device.id).eq('is_current', true).order('last_active', { ascending: false }), 'own list');
  assert.deepEqual(mine.map((s) => s.device_name), ['Firefox on Linux']);
  const all = ok(await admin.supabase.from('user_sessions').select('*').eq('is_current', true).order('last_active', { ascending: false }), 'admin list');
  assert.ok(all.some((s) => s.id === row.id));
  const people = ok(await admin.supabase.from('profiles').select('id, email, full_name').in('id', [...new Set(all.map((s) => s.user_id))]), 'admin view');
  assert.equal(people.find((p) => p.id === device.id).email, device.email);
  ok(await d.from('user_sessions').update({ last_active: new Date().toISOString() }).eq('id', row.id), 'heartbeat');
  assert.deepEqual(ok(await d.from('user_sessions').select('is_current').eq('id', row.id).maybeSingle(), 'status'), { is_current: true });
  assert.deepEqual(ok(await d.from('user_sessions').update({ is_current: false }).eq('id', row.id).select('is_current'), 'end own'), [{ is_current: false }]);
});

test('public settings RPCs answer through supabase-js', async () => {
  assert.deepEqual(ok(await visitor.rpc('get_site_contact'), 'site contact'), { whatsapp_number: null, email: null });
  assert.equal(ok(await learner.supabase.rpc('is_owner_account'), 'owner'), false);
  assert.deepEqual(ok(await learner.supabase.rpc('get_contact_admin'), 'contact admin'), []); // not configured here
  assert.equal(ok(await learner.supabase.rpc('get_contact_admin').maybeSingle(), 'contact admin, one row'), null);
  assert.ok((await visitor.rpc('get_contact_admin')).error);
});
