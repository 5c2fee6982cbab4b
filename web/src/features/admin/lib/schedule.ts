// Unlock schedule: the editor's values and the preview of what a learner has unlocked.
export interface ScheduleValues {
  unlock_interval_days: number;
  lessons_per_unlock: number;
  start_delay_days: number;
}

export const SCHEDULE_DEFAULTS: ScheduleValues = { unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 };
export const SCHEDULE_MINIMUMS: ScheduleValues = { unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 };

/** A number input's text: non-numeric falls back to the default, then the minimum applies. */
export function clampScheduleField(field: keyof ScheduleValues, raw: string | number): number {
  const n = typeof raw === "number" ? raw : Number.parseInt(raw, 10);
  const value = Number.isFinite(n) ? Math.floor(n) : SCHEDULE_DEFAULTS[field];
  return Math.max(SCHEDULE_MINIMUMS[field], value);
}

/**
 * Lessons unlocked `daysSinceAccess` days after access started: none before the start
 * delay, then `lessons_per_unlock` at once and as many more every interval (the same rule
 * as the server's get_user_unlocked_content).
 */
export function unlockedLessonCount(daysSinceAccess: number, s: ScheduleValues): number {
  if (daysSinceAccess < s.start_delay_days) return 0;
  return s.lessons_per_unlock * (1 + Math.floor((daysSinceAccess - s.start_delay_days) / s.unlock_interval_days));
}

/** Days from one date to another, counted in whole days (access start -> today). */
export function wholeDaysBetween(from: Date, to: Date): number {
  return Math.max(0, Math.floor((to.getTime() - from.getTime()) / 86_400_000));
}
