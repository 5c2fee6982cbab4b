// supabase-js, unmodified, against a project whose config.toml sets signing_keys_path: the anon key
// `supalite status` prints (SUPABASE_ANON_KEY) is the CLI's asymmetric one, and auth.getClaims()
// verifies an RS256 access token locally with the published JWKS, without asking /user.
// Run by tests/provision/supabase_project/test_config.py, which writes the key file (its first kid: KID).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';

// tests/js holds the node modules; this suite lives with the project tests.
const require = createRequire(new URL('../../js/package.json', import.meta.url));
const { createClient } = require('@supabase/supabase-js');

function spiedClient() {
  const calls = [];
  const spy = (input, init) => {
    calls.push(typeof input === 'string' ? input : input.url ?? String(input));
    return fetch(input, init);
  };
  const supabase = createClient(process.env.SUPABASE_URL, process.env.SUPABASE_ANON_KEY, {
    auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false },
    global: { fetch: spy },
  });
  return { supabase, calls };
}

function header(token) {
  return JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString());
}

test('the anon key is signed with the first key of signing_keys_path', () => {
  const key = header(process.env.SUPABASE_ANON_KEY);
  assert.equal(key.alg, 'RS256');
  assert.equal(key.kid, process.env.KID);
});

test('getClaims verifies an RS256 access token with the JWKS, locally', async () => {
  const { supabase, calls } = spiedClient();
  const email = `claims-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const { data, error } = await supabase.auth.signUp({ email, password: 'secret-pass-1' });
  assert.equal(error, null);
  assert.ok(data.session);
  calls.length = 0;
  const claims = await supabase.auth.getClaims();
  assert.equal(claims.error, null);
  assert.equal(claims.data.header.alg, 'RS256');
  assert.equal(claims.data.header.kid, process.env.KID);
  assert.equal(claims.data.claims.email, email);
  assert.equal(claims.data.claims.role, 'authenticated');
  assert.ok(calls.some((url) => url.endsWith('/auth/v1/.well-known/jwks.json')), calls.join(' '));
  assert.ok(!calls.some((url) => url.includes('/auth/v1/user')), calls.join(' '));

  // the same token with another subject: the signature no longer holds, and getClaims says so
  const [h, p, s] = data.session.access_token.split('.');
  const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
  payload.sub = '00000000-0000-0000-0000-000000000000';
  const forged = [h, Buffer.from(JSON.stringify(payload)).toString('base64url'), s].join('.');
  const refused = await supabase.auth.getClaims(forged);
  assert.equal(refused.data, null);
  assert.match(refused.error.message, /signature/i);
});
