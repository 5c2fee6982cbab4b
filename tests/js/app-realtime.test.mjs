// Live updates the web app relies on, with the unmodified supabase-js: the unread dot
// (private_messages) and the comments panel (content_comments, comment_replies) receive
// only the rows their reader's policies allow, every one of them, in commit order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { client, pgConfig, serviceClient, subscribed, uniqueEmail, waitFor } from './support.mjs';

const PASSWORD = 'app-realtime-1';
const clients = [];

async function signedIn(prefix) {
  const supabase = client();
  clients.push(supabase);
  const { data, error } = await supabase.auth.signUp({
    email: uniqueEmail(prefix), password: PASSWORD, options: { data: { full_name: `${prefix} name` } },
  });
  assert.equal(error, null);
  await supabase.realtime.setAuth(); // the join then carries the user's token
  return { supabase, id: data.user.id };
}

function inserts(supabase, name, table, filter) {
  const got = [];
  const channel = supabase.channel(`${name}-${Math.random().toString(36).slice(2)}`)
    .on('postgres_changes', { event: 'INSERT', schema: 'public', table, ...(filter ? { filter } : {}) }, (p) => got.push(p.new));
  return subscribed(channel).then(() => got);
}

let admin, alice, bob;

before(async () => {
  admin = await signedIn('rt-admin');
  alice = await signedIn('rt-alice');
  bob = await signedIn('rt-bob');
  const promoted = await serviceClient().from('profiles').update({ role: 'admin' }).eq('id', admin.id).select('role');
  assert.deepEqual(promoted.data, [{ role: 'admin' }]);
});

after(async () => {
  for (const supabase of clients) await supabase.removeAllChannels();
});

async function send(recipient, content) {
  const { data, error } = await admin.supabase.from('private_messages')
    .insert({ sender_id: admin.id, recipient_id: recipient.id, content }).select('id').single();
  assert.equal(error, null);
  return data.id;
}

test("a learner receives a message addressed to them, never one addressed to another learner", async () => {
  const aliceAll = await inserts(alice.supabase, 'alice-all', 'private_messages');  // RLS alone decides
  const aliceDot = await inserts(alice.supabase, 'alice-dot', 'private_messages', `recipient_id=eq.${alice.id}`);
  const bobAll = await inserts(bob.supabase, 'bob-all', 'private_messages');

  const toBob = await send(bob, 'Pour Bob');
  const toAlice = await send(alice, 'Pour Alice');
  await waitFor(() => aliceAll.length >= 1 && aliceDot.length >= 1 && bobAll.length >= 1, 'first messages');
  // Changes are delivered in commit order: had Bob's leaked, it would have come first.
  assert.deepEqual(aliceAll.map((m) => m.id), [toAlice]);
  assert.deepEqual(aliceDot.map((m) => [m.id, m.is_read, m.content]), [[toAlice, false, 'Pour Alice']]);

  const toBobAgain = await send(bob, 'Encore pour Bob');
  await waitFor(() => bobAll.length >= 2, "Bob's second message");
  assert.deepEqual(bobAll.map((m) => m.id), [toBob, toBobAgain]);  // Alice's never reached Bob
  assert.deepEqual(aliceAll.map((m) => m.id), [toAlice]);
});

test('the comments panel receives comments and replies on lessons the learner can read only', async () => {
  const course = async (visibility) => {
    const { data, error } = await admin.supabase.from('courses')
      .insert({ title: `RT ${visibility} course`, visibility, created_by: admin.id }).select('id').single();
    assert.equal(error, null);
    const lesson = await admin.supabase.from('course_content')
      .insert({ course_id: data.id, title: `RT ${visibility} lesson`, file_type: 'video', video_embed_url: 'https://player.example/embed/rt' })
      .select('id').single();
    assert.equal(lesson.error, null);
    return lesson.data.id;
  };
  const privateLesson = await course('private');
  const publicLesson = await course('public');
  const comments = await inserts(alice.supabase, 'alice-comments', 'content_comments');
  const replies = await inserts(alice.supabase, 'alice-replies', 'comment_replies');

  const comment = async (lesson, content) => {
    const { data, error } = await admin.supabase.from('content_comments')
      .insert({ content, user_id: admin.id, content_id: lesson }).select('id').single();
    assert.equal(error, null);
    return data.id;
  };
  const hidden = await comment(privateLesson, 'Leçon privée');
  const visible = await comment(publicLesson, 'Leçon publique');
  await waitFor(() => comments.length >= 1, 'a comment');
  assert.deepEqual(comments.map((c) => c.id), [visible]);

  await admin.supabase.from('comment_replies').insert({ content: 'Réponse cachée', user_id: admin.id, comment_id: hidden });
  const reply = await admin.supabase.from('comment_replies')
    .insert({ content: 'Réponse', user_id: admin.id, comment_id: visible }).select('id').single();
  assert.equal(reply.error, null);
  await waitFor(() => replies.length >= 1, 'a reply');
  assert.deepEqual(replies.map((r) => r.id), [reply.data.id]);
});

test('a message sent then marked read reaches the learner as INSERT then UPDATE while another transaction stays open', async () => {
  const events = [];
  await subscribed(alice.supabase.channel(`alice-inbox-${Math.random().toString(36).slice(2)}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'private_messages', filter: `recipient_id=eq.${alice.id}` },
      (p) => events.push(p)));
  const other = new pg.Client(pgConfig());
  await other.connect();
  try {
    await other.query('begin');
    await other.query('select pg_current_xact_id()'); // some other work, still open
    const id = await send(alice, 'Lu ?');
    const read = await alice.supabase.from('private_messages').update({ is_read: true }).eq('id', id).select('id');
    assert.deepEqual(read.data, [{ id }]);
    await waitFor(() => events.length >= 2, 'the message and its read mark');
    assert.deepEqual(events.map((e) => [e.eventType, e.new.id, e.new.is_read]), [['INSERT', id, false], ['UPDATE', id, true]]);
    // private_messages has the full row as replica identity: an UPDATE carries the previous row.
    assert.deepEqual([events[1].old.id, events[1].old.is_read], [id, false]);
  } finally {
    await other.query('rollback');
    await other.end();
  }
});

test("a comment deleted on a lesson reaches the lesson's panel, subscribed with its content_id filter", async () => {
  const { data: course } = await admin.supabase.from('courses')
    .insert({ title: 'RT delete course', visibility: 'public', created_by: admin.id }).select('id').single();
  const { data: lesson } = await admin.supabase.from('course_content')
    .insert({ course_id: course.id, title: 'RT delete lesson', file_type: 'video', video_embed_url: 'https://player.example/embed/rtd' })
    .select('id').single();
  const events = [];
  await subscribed(alice.supabase.channel(`alice-panel-${Math.random().toString(36).slice(2)}`)
    .on('postgres_changes', { event: '*', schema: 'public', table: 'content_comments', filter: `content_id=eq.${lesson.id}` },
      (p) => events.push(p)));
  const { data: comment, error } = await admin.supabase.from('content_comments')
    .insert({ content: 'Bientôt supprimé', user_id: admin.id, content_id: lesson.id }).select('id').single();
  assert.equal(error, null);
  const removed = await admin.supabase.from('content_comments').delete().eq('id', comment.id).select('id');
  assert.deepEqual(removed.data, [{ id: comment.id }]);
  await waitFor(() => events.length >= 2, 'the comment and its deletion');
  assert.deepEqual(events.map((e) => e.eventType), ['INSERT', 'DELETE']);
  assert.deepEqual(events[1].old, { id: comment.id }); // RLS is on: the primary key only, as Supabase sends it
});
