// Unlock schedule: the editor's values, their validation and their French wording. Which
// lessons a schedule opens is computed by the database only (rpc preview_unlock_schedule and
// the course_content policy), never here.
export interface ScheduleValues {
  unlock_interval_days: number;
  lessons_per_unlock: number;
  start_delay_days: number;
}

export type ScheduleField = keyof ScheduleValues;
export type ScheduleInput = Record<ScheduleField, string>;

export const SCHEDULE_DEFAULTS: ScheduleValues = { unlock_interval_days: 1, lessons_per_unlock: 1, start_delay_days: 0 };
/** The bounds the database enforces (check constraints of course_unlock_schedules). */
export const SCHEDULE_BOUNDS: Record<ScheduleField, { min: number; max: number }> = {
  unlock_interval_days: { min: 1, max: 365 },
  lessons_per_unlock: { min: 1, max: 100 },
  start_delay_days: { min: 0, max: 365 },
};
/** The preview's "access granted N days ago" (the RPC accepts up to 100000). */
export const PREVIEW_DAYS_MAX = 3650;

const MESSAGES: Record<ScheduleField, { below: string; above: string }> = {
  unlock_interval_days: {
    below: "L'intervalle doit être d'au moins 1 jour.",
    above: "L'intervalle ne peut pas dépasser 365 jours.",
  },
  lessons_per_unlock: {
    below: "Il faut débloquer au moins 1 leçon à la fois.",
    above: "On ne peut pas débloquer plus de 100 leçons à la fois.",
  },
  start_delay_days: {
    below: "Le délai ne peut pas être négatif.",
    above: "Le délai ne peut pas dépasser 365 jours.",
  },
};

/** A whole number typed in a field ("3", " 3 "), or null ("", "2.5", "abc", "1e3"). */
export function parseWholeNumber(raw: string): number | null {
  const text = raw.trim();
  return /^-?\d{1,9}$/.test(text) ? Number.parseInt(text, 10) : null;
}

export type ScheduleCheck = { ok: true; values: ScheduleValues } | { ok: false; errors: Partial<Record<ScheduleField, string>> };

/** Every field checked, one French message per wrong field; nothing is saved unless ok. */
export function validateSchedule(input: ScheduleInput): ScheduleCheck {
  const errors: Partial<Record<ScheduleField, string>> = {};
  const values = { ...SCHEDULE_DEFAULTS };
  for (const field of Object.keys(SCHEDULE_BOUNDS) as ScheduleField[]) {
    const n = parseWholeNumber(input[field]);
    const { min, max } = SCHEDULE_BOUNDS[field];
    if (n === null) errors[field] = "Saisissez un nombre entier.";
    else if (n < min) errors[field] = MESSAGES[field].below;
    else if (n > max) errors[field] = MESSAGES[field].above;
    else values[field] = n;
  }
  return Object.keys(errors).length ? { ok: false, errors } : { ok: true, values };
}

export function toInput(values: ScheduleValues): ScheduleInput {
  return {
    unlock_interval_days: String(values.unlock_interval_days),
    lessons_per_unlock: String(values.lessons_per_unlock),
    start_delay_days: String(values.start_delay_days),
  };
}

/** "1 jour", "3 jours" (0 and 1 are singular in French). */
export function days(n: number): string {
  return `${n} jour${n > 1 ? "s" : ""}`;
}

/** "1 leçon tous les jours", "2 leçons tous les 3 jours", then the start delay when there is one. */
export function scheduleSummary(values: ScheduleValues): string {
  const lessons = `${values.lessons_per_unlock} leçon${values.lessons_per_unlock > 1 ? "s" : ""}`;
  const every = values.unlock_interval_days === 1 ? "tous les jours" : `tous les ${values.unlock_interval_days} jours`;
  const delay = values.start_delay_days > 0 ? `, la première fois ${days(values.start_delay_days)} après l'accès` : "";
  return `${lessons} ${every}${delay}`;
}

/** "Après 3 jours d'accès, un apprenant a 2 leçons débloquées sur 4." */
export function previewSentence(daysSinceAccess: number, unlocked: number, total: number): string {
  const lessons = `${unlocked} leçon${unlocked > 1 ? "s" : ""} débloquée${unlocked > 1 ? "s" : ""}`;
  const when = daysSinceAccess === 0 ? "Le jour de l'accès" : `Après ${days(daysSinceAccess)} d'accès`;
  return `${when}, un apprenant a ${lessons} sur ${total}.`;
}
