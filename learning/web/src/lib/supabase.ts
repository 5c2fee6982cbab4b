import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { appConfig } from "@/config/app";
import type { Database } from "@/types/db";

let client: SupabaseClient<Database> | null = null;

/** The one supabase-js client, created lazily from the runtime config (never baked in). */
export function supabase(): SupabaseClient<Database> {
  if (!client) {
    client = createClient<Database>(appConfig.supabaseUrl, appConfig.supabaseAnonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    });
  }
  return client;
}
