// supabase.auth, unmodified, against a server with GoTrue's settings turned on: mail
// confirmations (GOTRUE_MAILER_AUTOCONFIRM=false), password rules, secure password change,
// anonymous sign-ins off, a redirect allow list; and a second server with sign-ups disabled.
// Run by tests/auth/test_settings_js.py, which starts both servers and ages one session.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { env, client, latestMessage, uniqueEmail } from './support.mjs';

const STRONG = 'Strong-pass-42';

test('weak passwords: AuthWeakPasswordError with GoTrue reasons', async () => {
  const { data, error } = await client().auth.signUp({ email: uniqueEmail('js-weak'), password: 'short' });
  assert.equal(data.user, null);
  assert.equal(error.name, 'AuthWeakPasswordError');
  assert.equal(error.code, 'weak_password');
  assert.equal(error.status, 422);
  assert.deepEqual(error.reasons, ['length', 'characters']);
});

test('confirmation by mail: no session, email_not_confirmed, then verifyOtp with the mailed code', async () => {
  const supabase = client();
  const email = uniqueEmail('js-confirm');
  const { data, error } = await supabase.auth.signUp({ email, password: STRONG });
  assert.equal(error, null);
  assert.equal(data.session, null);
  assert.equal(data.user.email, email);
  assert.ok(data.user.confirmation_sent_at);
  const early = await supabase.auth.signInWithPassword({ email, password: STRONG });
  assert.equal(early.error.code, 'email_not_confirmed');
  const mail = await latestMessage({ email });
  assert.equal(mail.Subject, 'Confirm Your Signup');
  const verified = await supabase.auth.verifyOtp({ email, token: mail.OTP, type: 'signup' });
  assert.equal(verified.error, null);
  assert.ok(verified.data.session.access_token);
  assert.ok(verified.data.user.email_confirmed_at);
  const signedIn = await client().auth.signInWithPassword({ email, password: STRONG });
  assert.equal(signedIn.error, null);
});

test('confirmation by the mailed link: GET /verify redirects with the session', async () => {
  const email = uniqueEmail('js-link');
  const { error } = await client().auth.signUp({ email, password: STRONG, options: { emailRedirectTo: 'https://app.example.org/welcome' } });
  assert.equal(error, null);
  const mail = await latestMessage({ email });
  const response = await fetch(mail.Link, { redirect: 'manual' });
  assert.equal(response.status, 303);
  const [target, fragment] = response.headers.get('location').split('#');
  assert.equal(target, 'https://app.example.org/welcome');
  const params = new URLSearchParams(fragment);
  assert.equal(params.get('type'), 'signup');
  const supabase = client();
  const { data, error: sessionError } = await supabase.auth.setSession({
    access_token: params.get('access_token'), refresh_token: params.get('refresh_token') });
  assert.equal(sessionError, null);
  assert.equal(data.user.email, email);
});

test('redirectTo outside the allow list falls back to the site URL', async () => {
  const email = uniqueEmail('js-redirect');
  await client().auth.signUp({ email, password: STRONG, options: { emailRedirectTo: 'https://evil.example.com/' } });
  const link = new URL((await latestMessage({ email })).Link);
  assert.equal(link.searchParams.get('redirect_to'), process.env.SITE_URL);
});

test('anonymous sign-ins are refused when off', async () => {
  const { data, error } = await client().auth.signInAnonymously();
  assert.equal(data.session, null);
  assert.equal(error.code, 'anonymous_provider_disabled');
  assert.equal(error.status, 422);
});

test('secure password change: reauthenticate(), then updateUser({ password, nonce })', async () => {
  const supabase = client();
  // a session signed in 25 hours ago (aged by the runner)
  const { error: refreshError } = await supabase.auth.refreshSession({ refresh_token: process.env.AGED_REFRESH_TOKEN });
  assert.equal(refreshError, null);
  const needed = await supabase.auth.updateUser({ password: 'Second-pass-42' });
  assert.equal(needed.error.code, 'reauthentication_needed');
  const sent = await supabase.auth.reauthenticate();
  assert.equal(sent.error, null);
  const mail = await latestMessage({ email: process.env.AGED_EMAIL });
  assert.equal(mail.Subject, 'Confirm reauthentication');
  const wrong = await supabase.auth.updateUser({ password: 'Second-pass-42', nonce: mail.OTP === '000000' ? '111111' : '000000' });
  assert.equal(wrong.error.code, 'reauthentication_not_valid');
  const changed = await supabase.auth.updateUser({ password: 'Second-pass-42', nonce: mail.OTP });
  assert.equal(changed.error, null);
  const signedIn = await client().auth.signInWithPassword({ email: process.env.AGED_EMAIL, password: 'Second-pass-42' });
  assert.equal(signedIn.error, null);
});

test('sign-ups disabled: signUp and signInWithOtp refused, admins still create users', async () => {
  const closed = createClient(process.env.CLOSED_URL, env.anonKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const service = createClient(process.env.CLOSED_URL, env.serviceKey, { auth: { persistSession: false, autoRefreshToken: false } });
  const signUp = await closed.auth.signUp({ email: uniqueEmail('js-closed'), password: STRONG });
  assert.equal(signUp.error.code, 'signup_disabled');
  assert.equal(signUp.error.status, 422);
  const otp = await closed.auth.signInWithOtp({ email: uniqueEmail('js-closed-otp') });
  assert.equal(otp.error.code, 'signup_disabled');
  const noCreate = await closed.auth.signInWithOtp({ email: uniqueEmail('js-closed-otp'), options: { shouldCreateUser: false } });
  assert.equal(noCreate.error.code, 'otp_disabled');
  const email = uniqueEmail('js-closed-admin');
  const created = await service.auth.admin.createUser({ email, password: STRONG, email_confirm: true });
  assert.equal(created.error, null);
  const signedIn = await closed.auth.signInWithPassword({ email, password: STRONG });
  assert.equal(signedIn.error, null);
});
