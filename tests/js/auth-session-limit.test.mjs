// The per-user session limit, through supabase-js. Needs a server started with
// SUPALITE_AUTH_MAX_SESSIONS (tests/auth/test_session_limit.py runs it so and sets MAX_SESSIONS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, env, serviceClient, uniqueEmail } from './support.mjs';

const limit = Number(process.env.MAX_SESSIONS || 0);

test('signing in beyond the session limit is refused until a session ends', { skip: limit === 0 && 'server has no session limit' }, async () => {
  const email = uniqueEmail('js-limit');
  const password = 'limit-password';
  const { data: created } = await serviceClient().auth.admin.createUser({ email, password, email_confirm: true });
  const tabs = [];
  for (let i = 0; i < limit; i += 1) {
    const tab = client();
    assert.equal((await tab.auth.signInWithPassword({ email, password })).error, null);
    tabs.push(tab);
  }
  const refused = await client().auth.signInWithPassword({ email, password });
  assert.equal(refused.data.session, null);
  assert.match(refused.error.message, /maximum number of sessions/);
  assert.equal(refused.error.status, 403);
  assert.equal(refused.error.code, 'session_limit_reached');
  // Refreshing an existing session is not a new session.
  assert.equal((await tabs[0].auth.refreshSession()).error, null);
  assert.equal((await tabs[0].auth.signOut({ scope: 'local' })).error, null);
  assert.equal((await client().auth.signInWithPassword({ email, password })).error, null);
  assert.ok(created.user.id);
});

test('a recovery code at the limit ends the least recently used session instead of refusing', { skip: limit === 0 && 'server has no session limit' }, async () => {
  const email = uniqueEmail('js-limit-recovery');
  const password = 'limit-password';
  await serviceClient().auth.admin.createUser({ email, password, email_confirm: true });
  const tabs = [];
  for (let i = 0; i < limit; i += 1) {
    const tab = client();
    assert.equal((await tab.auth.signInWithPassword({ email, password })).error, null);
    tabs.push(tab);
  }
  // Every tab but the first is used again: the first is the least recently used.
  for (const tab of tabs.slice(1)) assert.equal((await tab.auth.refreshSession()).error, null);
  const locked = client();
  assert.equal((await locked.auth.resetPasswordForEmail(email)).error, null);
  const inbox = await (await fetch(`${env.url}/inbox/api/v1/messages?email=${encodeURIComponent(email)}&limit=1`)).json();
  const { data, error } = await locked.auth.verifyOtp({ email, token: inbox.messages[0].OTP, type: 'recovery' });
  assert.equal(error, null);
  assert.ok(data.session.access_token);
  assert.equal((await tabs[0].auth.refreshSession()).error.code, 'refresh_token_not_found');
  for (const tab of tabs.slice(1)) assert.equal((await tab.auth.refreshSession()).error, null);
});
