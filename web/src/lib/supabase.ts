import { createClient, type SupabaseClient } from "@supabase/supabase-js";
import { appConfig } from "@/config/app";

let client: SupabaseClient | null = null;

/** The one supabase-js client, created lazily from the runtime config (never baked in). */
export function supabase(): SupabaseClient {
  if (!client) {
    client = createClient(appConfig.supabaseUrl, appConfig.supabaseAnonKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: true },
    });
  }
  return client;
}
