// What the pytest runner (tests/js/node_suite.py) hands every Node test file.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
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

const JWT_SECRET = process.env.SUPALITE_JWT_SECRET || 'super-secret-jwt-token-with-at-least-32-characters-long';

/** An access token of the `authenticated` user `sub`, signed as the server's own, expiring in `expiresIn` seconds. */
export function userToken(sub, expiresIn = 3600) {
  const b64 = (data) => Buffer.from(JSON.stringify(data)).toString('base64url');
  const claims = { sub, role: 'authenticated', aud: 'authenticated', exp: Math.floor(Date.now() / 1000) + expiresIn };
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${unsigned}.${crypto.createHmac('sha256', JWT_SECRET).update(unsigned).digest('base64url')}`;
}

/**
 * A client acting with `token` (supabase-js's `accessToken` option; the anon key when none), its
 * realtime socket speaking `vsn` (the library's default when unset). `token` may be a function:
 * change what it returns and call `supabase.realtime.setAuth()` to refresh the channels' token.
 */
export async function realtimeClient(token, vsn) {
  const current = typeof token === 'function' ? token : () => token;
  const supabase = createClient(env.url, env.anonKey, {
    accessToken: async () => current() || env.anonKey,
    realtime: vsn ? { vsn } : {},
  });
  await supabase.realtime.setAuth(); // the first join then carries the token
  return supabase;
}

/** Resolves with the channel once joined; rejects on CHANNEL_ERROR or TIMED_OUT. */
export function subscribed(channel) {
  return new Promise((resolve, reject) => {
    channel.subscribe((status, err) => {
      if (status === 'SUBSCRIBED') resolve(channel);
      else if (status === 'CHANNEL_ERROR' || status === 'TIMED_OUT') reject(err ?? new Error(status));
    });
  });
}

/** The first truthy value of `check()`, polled until `timeout` ms have passed. */
export async function waitFor(check, what, timeout = 8000) {
  const deadline = Date.now() + timeout;
  while (Date.now() < deadline) {
    const value = check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** node-postgres's config for DATABASE_URL, a libpq URL or a `key=value` conninfo string. */
export function pgConfig(conninfo = env.databaseUrl) {
  if (/^postgres(ql)?:\/\//.test(conninfo)) return { connectionString: conninfo };
  const fields = Object.fromEntries(conninfo.trim().split(/\s+/).map((kv) => kv.split('=')).map(([k, ...v]) => [k, v.join('=').replace(/^'|'$/g, '')]));
  return { host: fields.host, port: Number(fields.port || 5432), user: fields.user, password: fields.password, database: fields.dbname };
}
