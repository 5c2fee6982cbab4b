import { supabase } from "@/lib/supabase";
import type { UserSession } from "@/types/db";

export interface AdminSession extends UserSession {
  user_email: string | null;
  user_full_name: string | null;
}

/** Every connected device, newest activity first, with the user's e-mail and full name. */
export async function listAllSessions(): Promise<AdminSession[]> {
  const client = supabase();
  const { data, error } = await client.from("user_sessions").select("*").eq("is_current", true).order("last_active", { ascending: false });
  if (error) throw new Error(error.message || "Impossible de charger les sessions.");
  const sessions = (data ?? []) as UserSession[];
  const ids = [...new Set(sessions.map((s) => s.user_id))];
  const names = new Map<string, { email: string | null; full_name: string | null }>();
  if (ids.length) {
    const { data: profiles, error: profileError } = await client.from("profiles").select("id, email, full_name").in("id", ids);
    if (profileError) throw new Error(profileError.message);
    for (const p of (profiles ?? []) as Array<{ id: string; email: string | null; full_name: string | null }>) names.set(p.id, p);
  }
  return sessions.map((s) => ({ ...s, user_email: names.get(s.user_id)?.email ?? null, user_full_name: names.get(s.user_id)?.full_name ?? null }));
}
