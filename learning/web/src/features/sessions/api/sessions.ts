import { supabase } from "@/lib/supabase";
import { serverError } from "@/lib/server-errors";
import type { UserSession } from "@/types/db";

/**
 * A row of public.user_sessions: one per auth session of the user (every way in: sign-in,
 * sign-up, recovery link, magic link), plus the recently ended ones (is_current false, with
 * end_reason: user, admin, expired, evicted, password_changed, signed_out). is_this_device
 * marks the session of the JWT making the request; user_email and user_full_name are for admins.
 */
export type DeviceSession = UserSession;

export type SessionStatus = Pick<UserSession, "is_current" | "end_reason">;

/**
 * Names this browser's session (the spec's POST on login). The server knows the session from
 * the JWT and the address from the request, so only the name is sent.
 */
export async function nameThisDevice(deviceName: string): Promise<void> {
  const { error } = await supabase().from("user_sessions").insert({ device_name: deviceName });
  if (error) throw error;
}

/** Heartbeat: the server sets last_active to its own clock. */
export async function heartbeat(sessionId: string): Promise<void> {
  await supabase().from("user_sessions").update({ last_active: new Date().toISOString() }).eq("id", sessionId);
}

/** Whether this device's session is still current, and why not; null when it cannot be told. */
export async function sessionStatus(sessionId: string): Promise<SessionStatus | null> {
  const { data, error } = await supabase().from("user_sessions").select("is_current, end_reason").eq("id", sessionId).maybeSingle();
  if (error) return null;
  return data ?? { is_current: false, end_reason: null };
}

/** The user's connected devices, most recently active first. */
export async function listMySessions(userId: string): Promise<DeviceSession[]> {
  const { data, error } = await supabase()
    .from("user_sessions")
    .select("*")
    .eq("user_id", userId)
    .eq("is_current", true)
    .order("last_active", { ascending: false });
  if (error) throw error;
  return data ?? [];
}

/** Every connected device (admins), with the user's e-mail and full name. */
export async function listAllSessions(): Promise<DeviceSession[]> {
  const { data, error } = await supabase().from("user_sessions").select("*").eq("is_current", true).order("last_active", { ascending: false });
  if (error) throw serverError(error, "Impossible de charger les sessions.");
  return data ?? [];
}

/** Ends a device: its auth session is deleted, so it is signed out at its next check. */
export async function terminateSession(sessionId: string): Promise<void> {
  const { error } = await supabase().from("user_sessions").update({ is_current: false }).eq("id", sessionId);
  if (error) throw error;
}
