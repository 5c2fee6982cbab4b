import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import { serverError } from "@/lib/server-errors";
import type { Profile, ProfileUpdate } from "@/types/db";

/** All profiles, newest first (admin users list). */
export async function listProfiles(): Promise<Profile[]> {
  const { data, error } = await supabase().from("profiles").select("*").order("created_at", { ascending: false });
  if (error) throw serverError(error, "Impossible de charger les utilisateurs.");
  return data ?? [];
}

export async function getProfile(userId: string): Promise<Profile | null> {
  const { data, error } = await supabase().from("profiles").select("*").eq("id", userId).maybeSingle();
  if (error) throw error;
  return data;
}

async function patchProfile(userId: string, patch: ProfileUpdate): Promise<void> {
  // `count` tells a refused update (no row changed) from a successful one.
  const { error, count } = await supabase().from("profiles").update(patch, { count: "exact" }).eq("id", userId);
  if (error) throw textLimitError(error) ?? error;
  if (count === 0) throw new Error("Aucune ligne modifiée");
}

/** Details, payment or role: one patch of the profile row. */
export function updateUser(userId: string, patch: ProfileUpdate): Promise<void> {
  return patchProfile(userId, patch);
}

/** Ids of users with any access row (course, book or full access): the table's dot. */
export async function usersWithAccess(): Promise<Set<string>> {
  const client = supabase();
  const results = await Promise.all([
    client.from("course_access").select("user_id"),
    client.from("user_book_access").select("user_id"),
    client.from("full_access_users").select("user_id"),
    client.from("user_content_progress").select("user_id"),
  ]);
  const ids = new Set<string>();
  for (const { data } of results) for (const row of data ?? []) ids.add(row.user_id);
  return ids;
}
