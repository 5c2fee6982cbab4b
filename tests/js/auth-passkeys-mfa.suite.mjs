// supabase.auth.mfa.webauthn, unmodified, against /auth/v1 with a software authenticator as the
// browser's navigator.credentials. Run by tests/auth/test_passkeys_js.py against a server with
// WebAuthn factors enabled (GOTRUE_MFA_WEB_AUTHN_*) and the relying party below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserClient, claims, uniqueEmail } from './support.mjs';
import { SoftAuthenticator, installAuthenticator } from './soft-authenticator.mjs';

const ORIGIN = process.env.WEBAUTHN_ORIGIN ?? 'http://localhost:3000';
const PASSWORD = 'webauthn-mfa-pass';
const device = installAuthenticator(new SoftAuthenticator({ origin: ORIGIN }));

async function enrolledUser(prefix) {
  const supabase = browserClient();
  const email = uniqueEmail(prefix);
  assert.equal((await supabase.auth.signUp({ email, password: PASSWORD })).error, null);
  const { data, error } = await supabase.auth.mfa.webauthn.register({ friendlyName: 'Security key' });
  assert.equal(error, null);
  return { supabase, email, session: data };
}

test('mfa.webauthn.register enrolls and verifies a factor, the session reaches aal2', async () => {
  const { supabase, session } = await enrolledUser('js-mfa-wa');
  assert.equal(claims(session).aal, 'aal2');
  assert.ok(claims(session).amr.some((a) => a.method === 'mfa/webauthn'));
  const { data: level } = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.equal(level.currentLevel, 'aal2');
  const { data: factors } = await supabase.auth.mfa.listFactors();
  assert.equal(factors.webauthn.length, 1);
  assert.equal(factors.webauthn[0].friendly_name, 'Security key');
  assert.equal(factors.webauthn[0].status, 'verified');
});

test('a password sign-in is aal1 until mfa.webauthn.authenticate', async () => {
  const { email } = await enrolledUser('js-mfa-wa-signin');
  const tab = browserClient();
  assert.equal((await tab.auth.signInWithPassword({ email, password: PASSWORD })).error, null);
  const { data: before } = await tab.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([before.currentLevel, before.nextLevel], ['aal1', 'aal2']);
  const { data: factors } = await tab.auth.mfa.listFactors();
  const factorId = factors.webauthn[0].id;

  const { data, error } = await tab.auth.mfa.webauthn.authenticate({ factorId });
  assert.equal(error, null);
  assert.equal(claims(data).aal, 'aal2');
  const { data: after } = await tab.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([after.currentLevel, after.nextLevel], ['aal2', 'aal2']);

  // Unenrolling a verified factor needs the aal2 session just reached.
  assert.equal((await tab.auth.mfa.unenroll({ factorId })).error, null);
});

test('a spoilt assertion is refused, the next one passes', async () => {
  const { email } = await enrolledUser('js-mfa-wa-spoilt');
  const tab = browserClient();
  await tab.auth.signInWithPassword({ email, password: PASSWORD });
  const factorId = (await tab.auth.mfa.listFactors()).data.webauthn[0].id;
  for (const spoil of [{ origin: 'http://evil.example' }, { rpId: 'evil.example' }, { signature: true }]) {
    device.spoil = spoil;
    const { data, error } = await tab.auth.mfa.webauthn.authenticate({ factorId });
    assert.equal(data, null);
    assert.equal(error.code, 'mfa_verification_failed', JSON.stringify(spoil));
    assert.equal(error.status, 422);
  }
  assert.equal((await tab.auth.mfa.getAuthenticatorAssuranceLevel()).data.currentLevel, 'aal1');
  assert.equal((await tab.auth.mfa.webauthn.authenticate({ factorId })).error, null);
});
