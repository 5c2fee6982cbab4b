// The live server answers the unmodified supabase-js client's base URLs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';
import { env } from './support.mjs';

test('supabase-js talks to the server', async () => {
  const supabase = createClient(env.url, env.anonKey, { auth: { persistSession: false } });
  const { data, error } = await supabase.auth.getSession();
  assert.equal(error, null);
  assert.equal(data.session, null);
  const health = await fetch(`${env.url}/auth/v1/health`, { headers: { apikey: env.anonKey } });
  assert.equal(health.status, 200);
  assert.equal((await health.json()).name, 'GoTrue');
});
