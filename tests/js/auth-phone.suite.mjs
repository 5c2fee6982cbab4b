// supabase.auth, unmodified, with phone sign-in (GOTRUE_EXTERNAL_PHONE_ENABLED): run by
// tests/auth/test_phone_js.py against its own server, whose test number is TEST_PHONE/TEST_OTP.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { env, client, latestMessage, uniqueEmail } from './support.mjs';

const PASSWORD = 'phone-password';
const TEST_PHONE = process.env.TEST_PHONE;
const TEST_OTP = process.env.TEST_OTP;

function uniquePhone() {
  return `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
}

test('signUp with a phone, verifyOtp type sms, then signInWithPassword({phone})', async () => {
  const supabase = client();
  const phone = uniquePhone();
  const { data, error } = await supabase.auth.signUp({ phone, password: PASSWORD, options: { data: { name: 'Zoe' } } });
  assert.equal(error, null);
  assert.equal(data.session, null);
  assert.equal(data.user.phone, phone.slice(1));
  assert.equal(data.user.app_metadata.provider, 'phone');

  const early = await supabase.auth.signInWithPassword({ phone, password: PASSWORD });
  assert.equal(early.error.status, 400);
  assert.equal(early.error.code, 'phone_not_confirmed');

  const sms = await latestMessage({ phone });
  assert.match(sms.Text, /^Your code is \d{6}$/);
  const wrong = await supabase.auth.verifyOtp({ phone, token: sms.OTP === '000000' ? '111111' : '000000', type: 'sms' });
  assert.equal(wrong.error.status, 403);
  assert.equal(wrong.error.code, 'otp_expired');
  const verified = await supabase.auth.verifyOtp({ phone, token: sms.OTP, type: 'sms' });
  assert.equal(verified.error, null);
  assert.ok(verified.data.session.access_token);
  assert.ok(verified.data.user.phone_confirmed_at);
  assert.equal(verified.data.user.user_metadata.name, 'Zoe');

  const signedIn = client();
  const login = await signedIn.auth.signInWithPassword({ phone, password: PASSWORD });
  assert.equal(login.error, null);
  assert.equal(login.data.user.id, data.user.id);
  const { data: fetched } = await signedIn.auth.getUser();
  assert.equal(fetched.user.phone, phone.slice(1));
});

test('signInWithOtp({phone}) and resend, then verifyOtp', async () => {
  const supabase = client();
  const phone = uniquePhone();
  const none = await supabase.auth.signInWithOtp({ phone, options: { shouldCreateUser: false } });
  assert.equal(none.error.status, 422);
  assert.equal(none.error.code, 'otp_disabled');
  const sent = await supabase.auth.signInWithOtp({ phone });
  assert.equal(sent.error, null);
  const first = await latestMessage({ phone });
  const resent = await supabase.auth.resend({ type: 'sms', phone });
  assert.equal(resent.error, null);
  const second = await latestMessage({ phone });
  assert.notEqual(second.ID, first.ID);
  const { data, error } = await supabase.auth.verifyOtp({ phone, token: second.OTP, type: 'sms' });
  assert.equal(error, null);
  assert.equal(data.user.phone, phone.slice(1));
  const bad = await client().auth.signInWithOtp({ phone: '+0123' });
  assert.equal(bad.error.status, 400);
  assert.equal(bad.error.message, 'Invalid phone number format (E.164 required)');
  const whatsapp = await client().auth.signInWithOtp({ phone: uniquePhone(), options: { channel: 'whatsapp' } });
  assert.equal(whatsapp.error.status, 400);
  assert.equal(whatsapp.error.code, 'validation_failed');
});

test('a test number verifies with its fixed code and gets no SMS', async () => {
  const supabase = client();
  const phone = `+${TEST_PHONE}`;
  const sent = await supabase.auth.signInWithOtp({ phone });
  assert.equal(sent.error, null);
  const { data, error } = await supabase.auth.verifyOtp({ phone, token: TEST_OTP, type: 'sms' });
  assert.equal(error, null);
  assert.equal(data.user.phone, TEST_PHONE);
  const again = await supabase.auth.signInWithOtp({ phone });
  assert.equal(again.error, null);
  assert.equal(again.data.messageId, 'test-otp');
  const response = await fetch(`${env.url}/inbox/api/v1/messages?phone=${TEST_PHONE}`);
  assert.deepEqual((await response.json()).messages, []);
});

test('updateUser({phone}) then verifyOtp type phone_change', async () => {
  const supabase = client();
  const email = uniqueEmail('js-phone-change');
  const signedUp = await supabase.auth.signUp({ email, password: PASSWORD });
  assert.equal(signedUp.error, null);
  const phone = uniquePhone();
  const { data, error } = await supabase.auth.updateUser({ phone });
  assert.equal(error, null);
  assert.equal(data.user.new_phone, phone.slice(1));
  const resent = await supabase.auth.resend({ type: 'phone_change', phone: undefined, email });
  assert.equal(resent.error, null);
  const sms = await latestMessage({ phone });
  const verified = await supabase.auth.verifyOtp({ phone, token: sms.OTP, type: 'phone_change' });
  assert.equal(verified.error, null);
  assert.equal(verified.data.user.phone, phone.slice(1));
  assert.deepEqual(verified.data.user.app_metadata.providers, ['email', 'phone']);
  const { data: current } = await supabase.auth.getUser();
  assert.equal(current.user.phone, phone.slice(1));

  const other = client();
  await other.auth.signUp({ email: uniqueEmail('js-phone-taken'), password: PASSWORD });
  const taken = await other.auth.updateUser({ phone });
  assert.equal(taken.error.status, 422);
  assert.equal(taken.error.code, 'phone_exists');
});
