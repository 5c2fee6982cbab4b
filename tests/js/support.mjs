// What the pytest runner (tests/js/node_suite.py) hands every Node test file.
import assert from 'node:assert/strict';
import { createClient } from '@supabase/supabase-js';

export const env = {
  url: process.env.SUPABASE_URL,
  anonKey: process.env.SUPABASE_ANON_KEY,
  serviceKey: process.env.SUPABASE_SERVICE_KEY,
  databaseUrl: process.env.DATABASE_URL,
};

if (!env.url || !env.anonKey) {
  throw new Error('run the Node tests through pytest (tests/js/test_node_suites.py) or set SUPABASE_URL and SUPABASE_ANON_KEY');
}

/** A client that keeps its session in memory, like a fresh browser tab. */
export function client(key = env.anonKey, options = {}) {
  return createClient(env.url, key, { auth: { persistSession: false, autoRefreshToken: false }, ...options });
}

export function serviceClient() {
  return client(env.serviceKey);
}

/** A client as a browser page without a session in its URL (the passkey and WebAuthn suites). */
export function browserClient() {
  return client(undefined, { auth: { persistSession: false, autoRefreshToken: false, detectSessionInUrl: false } });
}

/** The claims of a session's access token. */
export function claims(session) {
  return JSON.parse(Buffer.from(session.access_token.split('.')[1], 'base64url').toString());
}

/** The newest message in the dev inbox for `{ email }` or `{ phone }`. */
export async function latestMessage(to) {
  const [[kind, address]] = Object.entries(to);
  const response = await fetch(`${env.url}/inbox/api/v1/messages?${kind}=${encodeURIComponent(address)}`);
  assert.equal(response.status, 200);
  const { messages } = await response.json();
  assert.ok(messages.length > 0, `no ${kind === 'phone' ? 'SMS to' : 'mail for'} ${address}`);
  return messages[0];
}

export function uniqueEmail(prefix = 'user') {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}
