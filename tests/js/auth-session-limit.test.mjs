// The per-user session limit, through supabase-js. Needs a server started with
// SUPALITE_AUTH_MAX_SESSIONS (tests/auth/test_session_limit.py runs it so and sets MAX_SESSIONS).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { client, serviceClient, uniqueEmail } from './support.mjs';

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
