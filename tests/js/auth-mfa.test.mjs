// supabase.auth.mfa and auth.admin.mfa, unmodified, against /auth/v1 (TOTP factors).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { client, serviceClient, uniqueEmail } from './support.mjs';

const PASSWORD = 'mfa-password';

/** RFC 4648 base32 to bytes. */
function base32Decode(text) {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = 0;
  let value = 0;
  const out = [];
  for (const char of text.replace(/=+$/, '')) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** RFC 6238 TOTP: HMAC-SHA1 over the 30-second step counter, dynamic truncation, 6 digits. */
function totp(secret, at = Date.now()) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(at / 1000 / 30)));
  const mac = createHmac('sha1', base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 1_000_000).padStart(6, '0');
}

function claims(jwt) {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
}

async function signedIn() {
  const supabase = client();
  const email = uniqueEmail('js-mfa');
  const { data, error } = await supabase.auth.signUp({ email, password: PASSWORD });
  assert.equal(error, null);
  return { supabase, email, user: data.user };
}

test('enroll, challenge, verify with a computed TOTP: the session reaches aal2', async () => {
  const { supabase } = await signedIn();
  const before = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([before.data.currentLevel, before.data.nextLevel], ['aal1', 'aal1']);

  const { data: factor, error } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator' });
  assert.equal(error, null);
  assert.equal(factor.type, 'totp');
  assert.equal(factor.friendly_name, 'Authenticator');
  assert.ok(factor.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg'));
  assert.match(factor.totp.uri, /^otpauth:\/\/totp\/.+\?algorithm=SHA1&digits=6&issuer=.+&period=30&secret=[A-Z2-7]{32}$/);

  const { data: challenge, error: challengeError } = await supabase.auth.mfa.challenge({ factorId: factor.id });
  assert.equal(challengeError, null);
  assert.equal(challenge.type, 'totp');
  assert.ok(challenge.expires_at > Date.now() / 1000);

  const wrongCode = totp(factor.totp.secret) === '000000' ? '111111' : '000000';
  const wrong = await supabase.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.id, code: wrongCode });
  assert.equal(wrong.error.status, 422);
  assert.equal(wrong.error.code, 'mfa_verification_failed');

  const events = [];
  supabase.auth.onAuthStateChange((event) => events.push(event));
  const { data: verified, error: verifyError } = await supabase.auth.mfa.verify({
    factorId: factor.id, challengeId: challenge.id, code: totp(factor.totp.secret),
  });
  assert.equal(verifyError, null);
  const token = claims(verified.access_token);
  assert.equal(token.aal, 'aal2');
  assert.deepEqual(token.amr.map((entry) => entry.method), ['totp', 'password']);
  assert.ok(events.includes('MFA_CHALLENGE_VERIFIED'));

  const { data: session } = await supabase.auth.getSession();
  assert.equal(claims(session.session.access_token).aal, 'aal2');
  const after = await supabase.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([after.data.currentLevel, after.data.nextLevel], ['aal2', 'aal2']);
  assert.equal(after.data.currentAuthenticationMethods[0].method, 'totp');

  // A refresh keeps aal2.
  const { data: refreshed, error: refreshError } = await supabase.auth.refreshSession();
  assert.equal(refreshError, null);
  assert.equal(claims(refreshed.session.access_token).aal, 'aal2');
});

test('listFactors, a new sign-in at aal1 with nextLevel aal2, challengeAndVerify, unenroll', async () => {
  const { supabase, email } = await signedIn();
  const { data: factor } = await supabase.auth.mfa.enroll({ factorType: 'totp' });
  const unverified = await supabase.auth.mfa.listFactors();
  assert.equal(unverified.error, null);
  assert.deepEqual(unverified.data.all.map((f) => [f.id, f.status]), [[factor.id, 'unverified']]);
  assert.deepEqual(unverified.data.totp, []);
  const { error: cavError } = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totp(factor.totp.secret) });
  assert.equal(cavError, null);
  const listed = await supabase.auth.mfa.listFactors();
  assert.deepEqual(listed.data.totp.map((f) => [f.id, f.status, f.factor_type]), [[factor.id, 'verified', 'totp']]);

  // Another device signs in: aal1, and supabase-js sees that aal2 is expected.
  const other = client();
  const { error: signInError } = await other.auth.signInWithPassword({ email, password: PASSWORD });
  assert.equal(signInError, null);
  const level = await other.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([level.data.currentLevel, level.data.nextLevel], ['aal1', 'aal2']);
  const refused = await other.auth.mfa.unenroll({ factorId: factor.id });
  assert.equal(refused.error.code, 'insufficient_aal');
  // A code serves once (RFC 6238 5.2): the next step's, which the server's skew accepts.
  const stepUp = await other.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totp(factor.totp.secret, Date.now() + 30000) });
  assert.equal(stepUp.error, null);
  const raised = await other.auth.mfa.getAuthenticatorAssuranceLevel();
  assert.deepEqual([raised.data.currentLevel, raised.data.nextLevel], ['aal2', 'aal2']);

  const { data: removed, error: unenrollError } = await other.auth.mfa.unenroll({ factorId: factor.id });
  assert.equal(unenrollError, null);
  assert.equal(removed.id, factor.id);
  const { data: refreshed } = await other.auth.refreshSession();
  assert.equal(claims(refreshed.session.access_token).aal, 'aal1');
  const none = await other.auth.mfa.listFactors();
  assert.deepEqual(none.data.all, []);
});

test('errors supabase-js surfaces: unknown factor, expired session of another user', async () => {
  const { supabase } = await signedIn();
  const unknown = await supabase.auth.mfa.challenge({ factorId: '00000000-0000-4000-8000-000000000000' });
  assert.equal(unknown.error.status, 404);
  assert.equal(unknown.error.code, 'mfa_factor_not_found');
  const { data: factor } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'mine' });
  const conflict = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'mine' });
  assert.equal(conflict.error.code, 'mfa_factor_name_conflict');
  const { supabase: stranger } = await signedIn();
  const foreign = await stranger.auth.mfa.challenge({ factorId: factor.id });
  assert.equal(foreign.error.code, 'mfa_factor_not_found');
  const phone = await supabase.auth.mfa.enroll({ factorType: 'phone', phone: '+15555550100' });
  assert.equal(phone.error.code, 'mfa_phone_enroll_not_enabled');
});

test('admin listFactors and deleteFactor', async () => {
  const { supabase, user } = await signedIn();
  const { data: factor } = await supabase.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'to delete' });
  await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code: totp(factor.totp.secret) });
  const admin = serviceClient();
  const { data: listed, error } = await admin.auth.admin.mfa.listFactors({ userId: user.id });
  assert.equal(error, null);
  assert.deepEqual(listed.factors.map((f) => [f.id, f.status, f.friendly_name]), [[factor.id, 'verified', 'to delete']]);
  const { data: deleted, error: deleteError } = await admin.auth.admin.mfa.deleteFactor({ userId: user.id, id: factor.id });
  assert.equal(deleteError, null);
  assert.equal(deleted.data.id, factor.id); // auth-js 2.119 wraps the answer once more: { data: factor }
  const { data: empty } = await admin.auth.admin.mfa.listFactors({ userId: user.id });
  assert.deepEqual(empty.factors, []);
  const missing = await admin.auth.admin.mfa.deleteFactor({ userId: user.id, id: factor.id });
  assert.equal(missing.error.status, 404);
  const { data: refreshed } = await supabase.auth.refreshSession();
  assert.equal(claims(refreshed.session.access_token).aal, 'aal1');
});
