import { supabase } from "@/lib/supabase";
import type { UnlockSchedule } from "@/types/db";
import type { ScheduleValues } from "@/features/admin/lib/schedule";

/** The active schedule of a course; none found (PGRST116) is not an error. */
export async function getSchedule(courseId: string): Promise<UnlockSchedule | null> {
  const { data, error } = await supabase().from("course_unlock_schedules").select("*").eq("course_id", courseId).eq("is_active", true).single();
  if (error) {
    if (error.code === "PGRST116") return null;
    throw error;
  }
  return data;
}

/** Updated if one exists, otherwise created. */
export async function saveSchedule(courseId: string, values: ScheduleValues): Promise<void> {
  const client = supabase();
  const { data: existing, error: readError } = await client.from("course_unlock_schedules").select("id").eq("course_id", courseId).maybeSingle();
  if (readError) throw readError;
  const row = { ...values, is_active: true, updated_at: new Date().toISOString() };
  const { error } = existing
    ? await client.from("course_unlock_schedules").update(row).eq("id", (existing as { id: string }).id)
    : await client.from("course_unlock_schedules").insert({ course_id: courseId, ...row });
  if (error) throw error;
}

/**
 * How many lessons of the course a learner whose access started `daysSinceAccess` days ago
 * would have unlocked with these values: computed by the database with the rule the
 * course_content policy applies (admins only).
 */
export async function previewUnlockCount(courseId: string, values: ScheduleValues, daysSinceAccess: number): Promise<number> {
  const { data, error } = await supabase().rpc("preview_unlock_schedule", { course_id: courseId, ...values, days_since_access: daysSinceAccess });
  if (error) throw error;
  return data as number;
}
