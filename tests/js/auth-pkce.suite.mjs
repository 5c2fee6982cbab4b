// supabase.auth with flowType 'pkce' (the default of @supabase/ssr), unmodified: mailed links
// come back with ?code=, exchanged with exchangeCodeForSession. Run by tests/auth/test_oauth_js.py
// against a server with mail confirmations on.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { env, latestMessage, uniqueEmail } from './support.mjs';

const SITE = process.env.SITE_URL;

function pkceClient() {
  return createClient(env.url, env.anonKey, { auth: { flowType: 'pkce', persistSession: false, autoRefreshToken: false } });
}

async function codeFromLink(link) {
  const response = await fetch(link, { redirect: 'manual' });
  assert.equal(response.status, 303);
  const location = new URL(response.headers.get('location'));
  assert.equal(location.origin, SITE);
  return location.searchParams.get('code');
}

/** A user signed up with `email` whose confirmation link was followed. */
async function confirmedUser(email) {
  const first = pkceClient();
  await first.auth.signUp({ email, password: 'pkce-password-1' });
  await first.auth.exchangeCodeForSession(await codeFromLink((await latestMessage({ email })).Link));
}

test('signUp confirmation link, then exchangeCodeForSession', async () => {
  const supabase = pkceClient();
  const email = uniqueEmail('js-pkce-signup');
  const { data, error } = await supabase.auth.signUp({ email, password: 'pkce-password-1', options: { emailRedirectTo: `${SITE}/welcome` } });
  assert.equal(error, null);
  assert.equal(data.session, null);
  const { Link } = await latestMessage({ email });
  assert.match(Link, /token=pkce_/);
  const code = await codeFromLink(Link);
  const exchanged = await supabase.auth.exchangeCodeForSession(code);
  assert.equal(exchanged.error, null);
  assert.equal(exchanged.data.user.email, email);
  assert.ok(exchanged.data.user.email_confirmed_at);
  const { data: current } = await supabase.auth.getUser();
  assert.equal(current.user.email, email);
  const again = await pkceClient().auth.exchangeCodeForSession(code);
  assert.ok(again.error);
});

test('resetPasswordForEmail, exchangeCodeForSession (PASSWORD_RECOVERY), updateUser', async () => {
  const email = uniqueEmail('js-pkce-recover');
  await confirmedUser(email);
  const supabase = pkceClient();
  const events = [];
  supabase.auth.onAuthStateChange((event) => events.push(event));
  const { error } = await supabase.auth.resetPasswordForEmail(email, { redirectTo: `${SITE}/reset` });
  assert.equal(error, null);
  const code = await codeFromLink((await latestMessage({ email })).Link);
  const exchanged = await supabase.auth.exchangeCodeForSession(code);
  assert.equal(exchanged.error, null);
  assert.equal(exchanged.data.redirectType, 'recovery');
  assert.ok(events.includes('PASSWORD_RECOVERY'));
  const updated = await supabase.auth.updateUser({ password: 'pkce-password-2' });
  assert.equal(updated.error, null);
  const signedIn = await pkceClient().auth.signInWithPassword({ email, password: 'pkce-password-2' });
  assert.equal(signedIn.error, null);
});

test('signInWithOtp magic link for an existing user', async () => {
  const email = uniqueEmail('js-pkce-otp');
  await confirmedUser(email);
  const supabase = pkceClient();
  const { error } = await supabase.auth.signInWithOtp({ email, options: { emailRedirectTo: `${SITE}/magic` } });
  assert.equal(error, null);
  const mail = await latestMessage({ email });
  assert.equal(mail.Kind, 'magiclink');
  const exchanged = await supabase.auth.exchangeCodeForSession(await codeFromLink(mail.Link));
  assert.equal(exchanged.error, null);
  assert.equal(exchanged.data.session.user.email, email);
});

test('exchangeCodeForSession with an unknown code', async () => {
  const supabase = pkceClient();
  await supabase.auth.signInWithOtp({ email: uniqueEmail('js-pkce-none') });  // stores a verifier
  const { data, error } = await supabase.auth.exchangeCodeForSession('00000000-0000-4000-8000-000000000000');
  assert.equal(data.session, null);
  assert.equal(error.status, 404);
  assert.equal(error.code, 'flow_state_not_found');
});
