// The unmodified supabase-js auth client against a Supabase CLI project started by `supalite start`
// (tests/provision/supabase_project/auth_project: passkeys, WebAuthn, every MFA factor, an RS256 signing key,
// the OAuth server, [auth.rate_limit] at 100, a test phone number), everything set in config.toml.
// Run by tests/provision/supabase_project/test_auth_project.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { createClient } from '@supabase/supabase-js';
import { browserClient, claims, env, serviceClient, uniqueEmail } from './support.mjs';
import { SoftAuthenticator, installAuthenticator } from './soft-authenticator.mjs';

const ORIGIN = 'http://localhost:3000'; // config.toml's [auth.webauthn] rp_origins
const PASSWORD = 'project-pass';
const device = installAuthenticator(new SoftAuthenticator({ origin: ORIGIN }));

function header(token) {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
}

/** RFC 6238's code of `secret` (base32) for now, SHA-1, 6 digits, 30 s steps. */
function totp(secret, at = Date.now()) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const char of secret.replace(/=+$/, '')) bits += alphabet.indexOf(char).toString(2).padStart(5, '0');
  const key = Buffer.from(bits.match(/.{8}/g).map((byte) => parseInt(byte, 2)));
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 30000)));
  const digest = createHmac('sha1', key).update(counter).digest();
  const offset = digest[digest.length - 1] & 0xf;
  return String((digest.readUInt32BE(offset) & 0x7fffffff) % 1_000_000).padStart(6, '0');
}

async function signedUp(prefix) {
  const supabase = browserClient();
  const email = uniqueEmail(prefix);
  const { data, error } = await supabase.auth.signUp({ email, password: PASSWORD });
  assert.equal(error, null);
  assert.ok(data.session, 'confirmations are off in config.toml: the sign-up signs in');
  return { supabase, email, user: data.user, session: data.session };
}

test('access tokens are RS256 with the key file\'s kid, and getClaims verifies them locally', async () => {
  const requests = [];
  const recording = (input, init) => {
    requests.push(String(input instanceof Request ? input.url : input));
    return fetch(input, init);
  };
  const supabase = createClient(env.url, env.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { fetch: recording },
  });
  const { data: signUp, error } = await supabase.auth.signUp({ email: uniqueEmail('claims'), password: PASSWORD });
  assert.equal(error, null);
  const { alg, kid } = header(signUp.session.access_token);
  assert.equal(alg, 'RS256');
  assert.equal(kid, process.env.SIGNING_KID);
  requests.length = 0;
  const { data, error: claimsError } = await supabase.auth.getClaims();
  assert.equal(claimsError, null);
  assert.equal(data.claims.sub, signUp.user.id);
  assert.equal(data.header.kid, kid);
  // verified with the published key (WebCrypto), not by asking the server for the user
  assert.ok(requests.some((url) => url.endsWith('/auth/v1/.well-known/jwks.json')), requests.join(' '));
  assert.ok(!requests.some((url) => url.includes('/auth/v1/user')), requests.join(' '));
  // the status keys are signed with the same key and work against the APIs
  assert.equal(header(env.anonKey).alg, 'RS256');
  const { data: users, error: adminError } = await serviceClient().auth.admin.listUsers({ page: 1, perPage: 1 });
  assert.equal(adminError, null);
  assert.equal(users.users.length, 1);
});

test('passkey: register, then sign in with it in another tab', async () => {
  const { supabase, user } = await signedUp('project-passkey');
  const { data: created, error } = await supabase.auth.registerPasskey();
  assert.equal(error, null);
  assert.ok(created.id);
  const tab = browserClient();
  const { data, error: signInError } = await tab.auth.signInWithPasskey();
  assert.equal(signInError, null);
  assert.equal(data.user.id, user.id);
  assert.deepEqual(claims(data.session).amr.map((a) => a.method), ['passkey']);
  device.credentials.clear(); // the next sign-in must not pick this user's passkey
});

test('WebAuthn MFA reaches aal2, and a password sign-in is aal1 until it authenticates', async () => {
  const { supabase, email } = await signedUp('project-webauthn');
  const { data: enrolled, error } = await supabase.auth.mfa.webauthn.register({ friendlyName: 'Key' });
  assert.equal(error, null);
  assert.equal(claims(enrolled).aal, 'aal2');
  const tab = browserClient();
  assert.equal((await tab.auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  assert.equal((await tab.auth.mfa.getAuthenticatorAssuranceLevel()).data.currentLevel, 'aal1');
  const factorId = (await tab.auth.mfa.listFactors()).data.webauthn[0].id;
  const { data, error: authError } = await tab.auth.mfa.webauthn.authenticate({ factorId });
  assert.equal(authError, null);
  assert.equal(claims(data).aal, 'aal2');
});

test('TOTP MFA: enroll, challenge and verify to aal2; the used code does not serve twice', async () => {
  const { supabase, email } = await signedUp('project-totp');
  const { data: factor, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'App' });
  assert.equal(error, null);
  const code = totp(factor.totp.secret);
  const { data: verified, error: verifyError } = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code });
  assert.equal(verifyError, null);
  assert.equal(claims(verified).aal, 'aal2');
  const tab = browserClient();
  assert.equal((await tab.auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  const { error: replayed } = await tab.auth.mfa.challengeAndVerify({ factorId: factor.id, code });
  assert.equal(replayed?.code, 'mfa_verification_failed');
  assert.equal((await tab.auth.mfa.getAuthenticatorAssuranceLevel()).data.currentLevel, 'aal1');
});

test('the OAuth server\'s clients: create, list, get, regenerate the secret, delete', async () => {
  const admin = serviceClient().auth.admin.oauth;
  const { data: created, error } = await admin.createClient({
    client_name: 'Project app', redirect_uris: ['http://localhost:3000/callback'],
  });
  assert.equal(error, null);
  assert.ok(created.client_id && created.client_secret);
  const { data: listed } = await admin.listClients();
  assert.ok(listed.clients.some((c) => c.client_id === created.client_id));
  const { data: got } = await admin.getClient(created.client_id);
  assert.equal(got.client_name, 'Project app');
  const { data: regenerated, error: regenerateError } = await admin.regenerateClientSecret(created.client_id);
  assert.equal(regenerateError, null);
  assert.notEqual(regenerated.client_secret, created.client_secret);
  assert.equal((await admin.deleteClient(created.client_id)).error, null);
  assert.equal((await admin.getClient(created.client_id)).error?.status, 404);
});

test('anonymous sign-in', async () => {
  const supabase = browserClient();
  const { data, error } = await supabase.auth.signInAnonymously();
  assert.equal(error, null);
  assert.equal(data.user.is_anonymous, true);
  assert.equal(claims(data.session).is_anonymous, true);
});

test('phone OTP with config.toml\'s test number: no SMS, its fixed code signs in', async () => {
  const supabase = browserClient();
  assert.equal((await supabase.auth.signInWithOtp({ phone: '1234567890' })).error, null);
  const { data, error } = await supabase.auth.verifyOtp({ phone: '1234567890', token: '123456', type: 'sms' });
  assert.equal(error, null);
  assert.equal(data.user.phone, '1234567890');
  const { error: wrong } = await browserClient().auth.verifyOtp({ phone: '1234567890', token: '000000', type: 'sms' });
  assert.equal(wrong?.code, 'otp_expired');
});

test('300 sign-ups and sign-ins from one address, as `supabase start` lets them through', async () => {
  const emails = Array.from({ length: 100 }, (_, i) => uniqueEmail(`loop${i}`));
  const refused = [];
  const batch = async (work) => {
    for (let start = 0; start < work.length; start += 10) {
      const results = await Promise.all(work.slice(start, start + 10).map((run) => run()));
      refused.push(...results.filter((r) => r.error).map((r) => r.error.code ?? r.error.message));
    }
  };
  await batch(emails.map((email) => () => browserClient().auth.signUp({ email, password: PASSWORD })));
  await batch([...emails, ...emails].map((email) => () => browserClient().auth.signInWithPassword({ email, password: PASSWORD })));
  assert.deepEqual(refused, []);
  // and a session refreshes
  const supabase = browserClient();
  await supabase.auth.signInWithPassword({ email: emails[0], password: PASSWORD });
  assert.equal((await supabase.auth.refreshSession()).error, null);
});
