// supabase.auth with an external OIDC provider (tests/auth/oidc_provider.py, configured as
// "keycloak"), unmodified: signInWithOAuth (implicit and pkce), signInWithIdToken,
// linkIdentity / unlinkIdentity / getUserIdentities. The browser's redirects are followed with
// fetch. Run by tests/auth/test_oauth_js.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { env, serviceClient, uniqueEmail } from './support.mjs';

const SITE = process.env.SITE_URL;
const ISSUER = process.env.OIDC_ISSUER;

function client(flowType = 'implicit') {
  return createClient(env.url, env.anonKey, { auth: { flowType, persistSession: false, autoRefreshToken: false } });
}

/** What a browser does with the URL: to the provider, which logs the user in, back to /callback, to the app. */
async function followToApp(url) {
  let next = url;
  for (let hop = 0; hop < 3; hop += 1) {
    const response = await fetch(next, { redirect: 'manual' });
    assert.ok([302, 303].includes(response.status), `${next} answered ${response.status}`);
    next = new URL(response.headers.get('location'), next).toString();
    if (next.startsWith(SITE)) return new URL(next);
  }
  throw new Error(`never came back to ${SITE}: ${next}`);
}

async function mint(claims) {
  const response = await fetch(`${ISSUER}/test/mint`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ claims }) });
  return (await response.json()).id_token;
}

test('signInWithOAuth (implicit): the tokens in the fragment make the session', async () => {
  const supabase = client();
  const email = uniqueEmail('js-oidc');
  const { data, error } = await supabase.auth.signInWithOAuth({
    provider: 'keycloak', options: { skipBrowserRedirect: true, redirectTo: `${SITE}/cb`, queryParams: { login_hint: email } },
  });
  assert.equal(error, null);
  assert.match(data.url, /\/auth\/v1\/authorize\?provider=keycloak/);
  const back = await followToApp(data.url);
  const fragment = new URLSearchParams(back.hash.slice(1));
  assert.ok(fragment.get('provider_token'));
  const { data: set, error: setError } = await supabase.auth.setSession({
    access_token: fragment.get('access_token'), refresh_token: fragment.get('refresh_token') });
  assert.equal(setError, null);
  assert.equal(set.user.email, email);
  assert.equal(set.user.app_metadata.provider, 'keycloak');
});

test('signInWithOAuth (pkce): ?code= exchanged, with the provider tokens', async () => {
  const supabase = client('pkce');
  const email = uniqueEmail('js-oidc-pkce');
  const { data } = await supabase.auth.signInWithOAuth({
    provider: 'keycloak', options: { skipBrowserRedirect: true, redirectTo: `${SITE}/cb`, queryParams: { login_hint: email } },
  });
  assert.match(data.url, /code_challenge=/);
  const back = await followToApp(data.url);
  const exchanged = await supabase.auth.exchangeCodeForSession(back.searchParams.get('code'));
  assert.equal(exchanged.error, null);
  assert.equal(exchanged.data.user.email, email);
  assert.ok(exchanged.data.session.provider_token);
  assert.ok(exchanged.data.session.provider_refresh_token);
});

test('signInWithIdToken with a nonce; a bad token is refused', async () => {
  const nonce = randomBytes(16).toString('hex');
  const email = uniqueEmail('js-idtoken');
  const token = await mint({ sub: `js-${nonce}`, email, email_verified: true, nonce: createHash('sha256').update(nonce).digest('hex') });
  const supabase = client();
  const { data, error } = await supabase.auth.signInWithIdToken({ provider: 'keycloak', token, nonce });
  assert.equal(error, null);
  assert.equal(data.user.email, email);
  const refused = await client().auth.signInWithIdToken({ provider: 'keycloak', token: 'not.a.token' });
  assert.equal(refused.error.status, 400);
  assert.match(refused.error.message, /Bad ID token/);
  const disabled = await client().auth.signInWithIdToken({ provider: 'google', token });
  assert.equal(disabled.error.code, 'provider_disabled');
});

test('linkIdentity, getUserIdentities, unlinkIdentity', async () => {
  const supabase = client();
  const email = uniqueEmail('js-link-owner');
  // Mail confirmations are on: the owner is made by an admin, confirmed.
  const { error: createError } = await serviceClient().auth.admin.createUser({ email, password: 'link-password-1', email_confirm: true });
  assert.equal(createError, null);
  const { error: signInError } = await supabase.auth.signInWithPassword({ email, password: 'link-password-1' });
  assert.equal(signInError, null);
  const { data, error } = await supabase.auth.linkIdentity({
    provider: 'keycloak', options: { skipBrowserRedirect: true, redirectTo: `${SITE}/linked`, queryParams: { login_hint: uniqueEmail('js-linked') } },
  });
  assert.equal(error, null);
  const back = await followToApp(data.url);
  assert.ok(new URLSearchParams(back.hash.slice(1)).get('access_token'));
  const { data: listed } = await supabase.auth.getUserIdentities();
  assert.deepEqual(listed.identities.map((i) => i.provider), ['email', 'keycloak']);
  const keycloak = listed.identities.find((i) => i.provider === 'keycloak');
  const { error: unlinkError } = await supabase.auth.unlinkIdentity(keycloak);
  assert.equal(unlinkError, null);
  await supabase.auth.refreshSession();
  const { data: after } = await supabase.auth.getUserIdentities();
  assert.deepEqual(after.identities.map((i) => i.provider), ['email']);
  const { error: lastError } = await supabase.auth.unlinkIdentity(after.identities[0]);
  assert.equal(lastError.code, 'single_identity_not_deletable');
});

test('an anonymous user links an ID token (linkIdentity with a token)', async () => {
  const supabase = client();
  const { data: anonymous } = await supabase.auth.signInAnonymously();
  const email = uniqueEmail('js-anon-link');
  const token = await mint({ sub: `anon-${Date.now()}`, email, email_verified: true });
  const { data, error } = await supabase.auth.linkIdentity({ provider: 'keycloak', token });
  assert.equal(error, null);
  assert.equal(data.user.id, anonymous.user.id);
  assert.equal(data.user.email, email);
  assert.equal(data.user.is_anonymous, false);
});
