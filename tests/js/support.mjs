// What the pytest runner (tests/js/test_node_suites.py) hands every Node test file.
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

export function uniqueEmail(prefix = 'user') {
  return `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}
