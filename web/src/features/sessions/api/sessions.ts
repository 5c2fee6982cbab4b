import { supabase } from "@/lib/supabase";
import type { UserSession } from "@/types/db";

export async function recordDeviceSession(userId: string, deviceName: string, ipAddress: string): Promise<string> {
  const { data, error } = await supabase()
    .from("user_sessions")
    .insert({ user_id: userId, device_name: deviceName, ip_address: ipAddress, last_active: new Date().toISOString() })
    .select("id")
    .single();
  if (error) throw error;
  return (data as { id: string }).id;
}

export async function heartbeat(sessionId: string): Promise<void> {
  await supabase().from("user_sessions").update({ last_active: new Date().toISOString() }).eq("id", sessionId);
}

/** Whether this device's session is still current; null when it cannot be told. */
export async function isSessionCurrent(sessionId: string): Promise<boolean | null> {
  const { data, error } = await supabase().from("user_sessions").select("is_current").eq("id", sessionId).maybeSingle();
  if (error) return null;
  if (!data) return false;
  return (data as { is_current: boolean }).is_current;
}

export async function listMySessions(userId: string): Promise<UserSession[]> {
  const { data, error } = await supabase().from("user_sessions").select("*").eq("user_id", userId).eq("is_current", true).order("last_active", { ascending: false });
  if (error) throw error;
  return (data ?? []) as UserSession[];
}

export async function terminateSession(sessionId: string): Promise<void> {
  const { error } = await supabase().from("user_sessions").update({ is_current: false }).eq("id", sessionId);
  if (error) throw error;
}
