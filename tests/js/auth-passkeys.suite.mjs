// supabase.auth passkeys, unmodified, against /auth/v1 with a software authenticator as the
// browser's navigator.credentials. Run by tests/auth/test_passkeys_js.py against a server with
// passkeys enabled (GOTRUE_PASSKEY_ENABLED) and the relying party below.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { browserClient, claims, serviceClient, uniqueEmail } from './support.mjs';
import { SoftAuthenticator, installAuthenticator } from './soft-authenticator.mjs';

const ORIGIN = process.env.WEBAUTHN_ORIGIN ?? 'http://localhost:3000';
const device = installAuthenticator(new SoftAuthenticator({ origin: ORIGIN }));

async function signedUp(prefix) {
  const supabase = browserClient();
  const { data, error } = await supabase.auth.signUp({ email: uniqueEmail(prefix), password: 'passkey-pass' });
  assert.equal(error, null);
  return { supabase, user: data.user };
}

test('registerPasskey, list, update, then signInWithPasskey in another tab and delete', async () => {
  const { supabase, user } = await signedUp('js-passkey');
  const { data: created, error } = await supabase.auth.registerPasskey();
  assert.equal(error, null);
  assert.equal(created.friendly_name, 'Passkey');
  assert.ok(created.id && created.created_at);

  const { data: listed, error: listError } = await supabase.auth.passkey.list();
  assert.equal(listError, null);
  assert.deepEqual(listed.map((p) => p.id), [created.id]);

  const { data: renamed, error: renameError } = await supabase.auth.passkey.update({ passkeyId: created.id, friendlyName: 'Phone' });
  assert.equal(renameError, null);
  assert.equal(renamed.friendly_name, 'Phone');

  // A second registration on the same authenticator: the server excludes the credential it
  // already knows, and the authenticator refuses (as a browser does).
  const { error: twice } = await supabase.auth.registerPasskey();
  assert.ok(twice, 'the authenticator holds a credential the options exclude');

  const tab = browserClient();
  const events = [];
  tab.auth.onAuthStateChange((event) => events.push(event));
  const { data: signedIn, error: signInError } = await tab.auth.signInWithPasskey();
  assert.equal(signInError, null);
  assert.equal(signedIn.user.id, user.id);
  assert.deepEqual(claims(signedIn.session).amr.map((a) => a.method), ['passkey']);
  const { data: current } = await tab.auth.getSession();
  assert.equal(current.session.user.id, user.id);
  assert.ok(events.includes('SIGNED_IN'));
  const { data: fetched } = await tab.auth.getUser();
  assert.equal(fetched.user.id, user.id);

  const { data: afterUse } = await supabase.auth.passkey.list();
  assert.ok(afterUse[0].last_used_at);

  const { error: deleteError } = await supabase.auth.passkey.delete({ passkeyId: created.id });
  assert.equal(deleteError, null);
  assert.deepEqual((await supabase.auth.passkey.list()).data, []);

  const { data: refused, error: refusedError } = await browserClient().auth.signInWithPasskey();
  assert.equal(refused, null);
  assert.equal(refusedError.code, 'webauthn_verification_failed');
});

test('a spoilt assertion is refused, the next one signs in', async () => {
  const { supabase } = await signedUp('js-passkey-spoilt');
  device.credentials.clear();
  assert.equal((await supabase.auth.registerPasskey()).error, null);
  for (const spoil of [{ origin: 'http://evil.example' }, { rpId: 'evil.example' }, { signature: true }]) {
    device.spoil = spoil;
    const { error } = await browserClient().auth.signInWithPasskey();
    assert.equal(error?.code, 'webauthn_verification_failed', JSON.stringify(spoil));
    assert.equal(error.status, 400);
  }
  assert.equal((await browserClient().auth.signInWithPasskey()).error, null);
});

test('the admin API lists and deletes a user\'s passkeys', async () => {
  const { supabase, user } = await signedUp('js-passkey-admin');
  device.credentials.clear();
  const { data: created } = await supabase.auth.registerPasskey();
  const admin = serviceClient().auth.admin;
  const { data: listed, error } = await admin.passkey.listPasskeys({ userId: user.id });
  assert.equal(error, null);
  assert.deepEqual(listed.map((p) => p.id), [created.id]);
  assert.equal((await admin.passkey.deletePasskey({ userId: user.id, passkeyId: created.id })).error, null);
  assert.deepEqual((await admin.passkey.listPasskeys({ userId: user.id })).data, []);
  const { error: missing } = await admin.passkey.deletePasskey({ userId: user.id, passkeyId: created.id });
  assert.equal(missing.status, 404);
});

test('an anonymous user may not register a passkey', async () => {
  const supabase = browserClient();
  assert.equal((await supabase.auth.signInAnonymously()).error, null);
  const { data, error } = await supabase.auth.registerPasskey();
  assert.equal(data, null);
  assert.equal(error.code, 'no_authorization');
  assert.equal(error.status, 403);
});
