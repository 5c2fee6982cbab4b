// supabase.auth, unmodified, against /auth/v1: the flows the site uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, client, latestMessage, serviceClient, uniqueEmail } from './support.mjs';

const PASSWORD = 'first-password';

test('signUp with options.data, then getUser and getSession', async () => {
  const supabase = client();
  const email = uniqueEmail('js-signup');
  const { data, error } = await supabase.auth.signUp({ email, password: PASSWORD, options: { data: { full_name: 'Ada L' } } });
  assert.equal(error, null);
  assert.equal(data.user.email, email);
  assert.equal(data.user.user_metadata.full_name, 'Ada L');
  assert.ok(data.session.access_token);
  const { data: current } = await supabase.auth.getSession();
  assert.equal(current.session.user.id, data.user.id);
  const { data: fetched, error: getError } = await supabase.auth.getUser();
  assert.equal(getError, null);
  assert.equal(fetched.user.id, data.user.id);
});

test('signInWithPassword, refreshSession, updateUser({password}), onAuthStateChange', async () => {
  const email = uniqueEmail('js-signin');
  await client().auth.signUp({ email, password: PASSWORD });
  const supabase = client();
  const events = [];
  const { data: { subscription } } = supabase.auth.onAuthStateChange((event) => events.push(event));
  const wrong = await supabase.auth.signInWithPassword({ email, password: 'nope-nope' });
  assert.equal(wrong.error.status, 400);
  assert.equal(wrong.error.code, 'invalid_credentials');
  const { data, error } = await supabase.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(error, null);
  const refreshed = await supabase.auth.refreshSession();
  assert.equal(refreshed.error, null);
  assert.notEqual(refreshed.data.session.refresh_token, data.session.refresh_token);
  const updated = await supabase.auth.updateUser({ password: 'second-password' });
  assert.equal(updated.error, null);
  const same = await supabase.auth.updateUser({ password: 'second-password' });
  assert.equal(same.error.code, 'same_password');
  const weak = await supabase.auth.updateUser({ password: 'abc' });
  assert.equal(weak.error.code, 'weak_password');
  assert.deepEqual(weak.error.reasons, ['length']);
  const again = await client().auth.signInWithPassword({ email, password: 'second-password' });
  assert.equal(again.error, null);
  await supabase.auth.signOut({ scope: 'local' });
  subscription.unsubscribe();
  assert.deepEqual(events.filter((e) => e !== 'INITIAL_SESSION'), ['SIGNED_IN', 'TOKEN_REFRESHED', 'USER_UPDATED', 'SIGNED_OUT']);
});

test('signOut scopes: others, local, global', async () => {
  const email = uniqueEmail('js-signout');
  await client().auth.signUp({ email, password: PASSWORD });
  const [a, b, c] = [client(), client(), client()];
  for (const tab of [a, b, c]) {
    assert.equal((await tab.auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  }
  assert.equal((await c.auth.signOut({ scope: 'others' })).error, null);
  // auth-js turns 403 session_not_found into AuthSessionMissingError and forgets the session.
  assert.equal((await a.auth.getUser()).error.name, 'AuthSessionMissingError');
  assert.equal((await a.auth.getSession()).data.session, null);
  assert.equal((await c.auth.getUser()).error, null);
  assert.equal((await c.auth.signOut({ scope: 'local' })).error, null);
  assert.equal((await c.auth.getSession()).data.session, null);
  const d = client();
  await d.auth.signInWithPassword({ email, password: PASSWORD });
  const e = client();
  await e.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal((await d.auth.signOut()).error, null);
  assert.equal((await e.auth.refreshSession()).error.code, 'refresh_token_not_found');
  // Signing out an already ended session counts as success.
  assert.equal((await b.auth.signOut()).error, null);
});

test('resetPasswordForEmail, then verifyOtp with the code from the inbox', async () => {
  const email = uniqueEmail('js-recover');
  await client().auth.signUp({ email, password: PASSWORD });
  const supabase = client();
  const events = [];
  supabase.auth.onAuthStateChange((event) => events.push(event));
  const { error } = await supabase.auth.resetPasswordForEmail(email);
  assert.equal(error, null);
  const mail = await latestMessage({ email });
  assert.equal(mail.Kind, 'recovery');
  assert.match(mail.OTP, /^\d{6}$/);
  assert.ok(mail.Text.includes(mail.Link)); // the site's learning/mail/recovery.html: the link, no code
  assert.ok(mail.Link.startsWith(`${env.url}/auth/v1/verify?token=`));
  const bad = await supabase.auth.verifyOtp({ email, token: '000000' === mail.OTP ? '111111' : '000000', type: 'recovery' });
  assert.equal(bad.error.code, 'otp_expired');
  const { data, error: verifyError } = await supabase.auth.verifyOtp({ email, token: mail.OTP, type: 'recovery' });
  assert.equal(verifyError, null);
  assert.equal(data.user.email, email);
  assert.ok(events.includes('PASSWORD_RECOVERY'));
  assert.equal((await supabase.auth.updateUser({ password: 'recovered-pass' })).error, null);
  assert.equal((await client().auth.signInWithPassword({ email, password: 'recovered-pass' })).error, null);
  const reused = await client().auth.verifyOtp({ email, token: mail.OTP, type: 'recovery' });
  assert.equal(reused.error.code, 'otp_expired');
});

test('signInWithOtp mails a code that signs in', async () => {
  const email = uniqueEmail('js-otp');
  const supabase = client();
  assert.equal((await supabase.auth.signInWithOtp({ email, options: { shouldCreateUser: false } })).error.code, 'otp_disabled');
  assert.equal((await supabase.auth.signInWithOtp({ email })).error, null);
  const mail = await latestMessage({ email });
  const { data, error } = await supabase.auth.verifyOtp({ email, token: mail.OTP, type: 'email' });
  assert.equal(error, null);
  assert.equal(data.session.user.email, email);
});

test('anonymous sign-in', async () => {
  const supabase = client();
  const { data, error } = await supabase.auth.signInAnonymously();
  assert.equal(error, null);
  assert.equal(data.user.is_anonymous, true);
});

test('admin calls with the service key', async () => {
  const admin = serviceClient().auth.admin;
  const email = uniqueEmail('js-admin');
  const created = await admin.createUser({ email, password: PASSWORD, email_confirm: true, user_metadata: { full_name: 'Admin Made' } });
  assert.equal(created.error, null);
  const id = created.data.user.id;
  assert.ok(created.data.user.email_confirmed_at);
  const fetched = await admin.getUserById(id);
  assert.equal(fetched.data.user.user_metadata.full_name, 'Admin Made');
  const listed = await admin.listUsers({ page: 1, perPage: 1 });
  assert.equal(listed.error, null);
  assert.equal(listed.data.users.length, 1);
  assert.ok(listed.data.total >= 1);
  const banned = await admin.updateUserById(id, { ban_duration: '24h' });
  assert.equal(banned.error, null);
  assert.ok(banned.data.user.banned_until);
  const refused = await client().auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(refused.error.code, 'user_banned');
  await admin.updateUserById(id, { ban_duration: 'none' });
  assert.equal((await client().auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  const link = await admin.generateLink({ type: 'magiclink', email });
  assert.equal(link.error, null);
  assert.match(link.data.properties.email_otp, /^\d{6}$/);
  assert.equal((await client().auth.verifyOtp({ email, token: link.data.properties.email_otp, type: 'magiclink' })).error, null);
  const forbidden = await client().auth.admin.listUsers();
  assert.equal(forbidden.error.status, 403);
  assert.equal((await admin.deleteUser(id)).error, null);
  assert.equal((await admin.getUserById(id)).error.status, 404);
});
