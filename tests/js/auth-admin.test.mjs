// supabase.auth.admin, unmodified: inviteUserByEmail and accepting the invite, generateLink
// ({type: 'invite'}), createUser's metadata and listUsers' pagination errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, client, serviceClient, uniqueEmail } from './support.mjs';

async function latestMail(email) {
  const response = await fetch(`${env.url}/inbox/api/v1/messages?email=${encodeURIComponent(email)}&limit=1`);
  assert.equal(response.status, 200);
  const { messages } = await response.json();
  assert.ok(messages.length > 0, `no mail for ${email}`);
  return messages[0];
}

test('inviteUserByEmail, then verifyOtp({type: invite}) with the mailed code', async () => {
  const admin = serviceClient().auth.admin;
  const email = uniqueEmail('js-invite');
  const { data, error } = await admin.inviteUserByEmail(email, { data: { team: 'blue' }, redirectTo: `${env.url}/welcome` });
  assert.equal(error, null);
  assert.equal(data.user.email, email);
  assert.ok(data.user.invited_at);
  assert.deepEqual(data.user.user_metadata, { team: 'blue' });
  const mail = await latestMail(email);
  assert.equal(mail.Kind, 'invite');
  assert.equal(new URL(mail.Link).searchParams.get('redirect_to'), `${env.url}/welcome`);

  const supabase = client();
  const { data: verified, error: verifyError } = await supabase.auth.verifyOtp({ email, token: mail.OTP, type: 'invite' });
  assert.equal(verifyError, null);
  assert.equal(verified.user.email, email);
  assert.ok(verified.user.email_confirmed_at);
  assert.ok(verified.session.access_token);
  const { data: updated, error: updateError } = await supabase.auth.updateUser({ password: 'invited-password' });
  assert.equal(updateError, null);
  assert.equal(updated.user.id, data.user.id);
  const signedIn = await client().auth.signInWithPassword({ email, password: 'invited-password' });
  assert.equal(signedIn.error, null);

  const { error: again } = await admin.inviteUserByEmail(email);
  assert.equal(again.status, 422);
  assert.equal(again.code, 'email_exists');
});

test('the invite link\'s token_hash signs the user in once', async () => {
  const email = uniqueEmail('js-invite-link');
  await serviceClient().auth.admin.inviteUserByEmail(email);
  const tokenHash = new URL((await latestMail(email)).Link).searchParams.get('token');
  const { data, error } = await client().auth.verifyOtp({ token_hash: tokenHash, type: 'invite' });
  assert.equal(error, null);
  assert.equal(data.user.email, email);
  const { error: replay } = await client().auth.verifyOtp({ token_hash: tokenHash, type: 'invite' });
  assert.equal(replay.status, 403);
  assert.equal(replay.code, 'otp_expired');
});

test('generateLink({type: invite}) matches inviteUserByEmail', async () => {
  const admin = serviceClient().auth.admin;
  const email = uniqueEmail('js-invite-gen');
  const { data, error } = await admin.generateLink({ type: 'invite', email, options: { data: { via: 'link' } } });
  assert.equal(error, null);
  assert.equal(data.properties.verification_type, 'invite');
  assert.ok(data.properties.action_link.includes('type=invite'));
  assert.ok(data.user.invited_at);
  assert.deepEqual(data.user.user_metadata, { via: 'link' });
  const { data: verified, error: verifyError } = await client().auth.verifyOtp({ email, token: data.properties.email_otp, type: 'invite' });
  assert.equal(verifyError, null);
  assert.deepEqual(verified.user.user_metadata, { via: 'link', email_verified: true });
});

test('createUser keeps exactly the user_metadata sent; bad pages are refused', async () => {
  const admin = serviceClient().auth.admin;
  const { data, error } = await admin.createUser({ email: uniqueEmail('js-admin'), password: 'admin-pass-1', user_metadata: { role: 'teacher' } });
  assert.equal(error, null);
  assert.deepEqual(data.user.user_metadata, { role: 'teacher' });
  const { data: updated } = await admin.updateUserById(data.user.id, { user_metadata: { level: 3 } });
  assert.deepEqual(updated.user.user_metadata, { role: 'teacher', level: 3 });
  const { error: badPage } = await admin.listUsers({ page: -1 });
  assert.equal(badPage.status, 400);
  assert.equal(badPage.code, 'validation_failed');
  const { error: badSize } = await admin.listUsers({ perPage: 5000 });
  assert.equal(badSize.status, 400);
  const { data: listed, error: listError } = await admin.listUsers({ page: 1, perPage: 2 });
  assert.equal(listError, null);
  assert.equal(listed.users.length, 2);
});

test('a user token cannot invite', async () => {
  const supabase = client();
  await supabase.auth.signUp({ email: uniqueEmail('js-not-admin'), password: 'not-admin-pass' });
  const { error } = await supabase.auth.admin.inviteUserByEmail(uniqueEmail('js-nope'));
  assert.ok(error);
  assert.equal(error.status, 403);
});
