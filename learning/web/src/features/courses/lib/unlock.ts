// The course outline as the server gives it (rpc get_course_outline): every lesson the
// learner may know of, locked ones with the date their schedule opens them. Which lesson is
// open is decided by the database; this file only words it.
import { format, isSameYear } from "date-fns";
import { fr } from "date-fns/locale";
import type { FileType } from "@/types/db";

export interface OutlineLesson {
  id: string;
  title: string;
  file_type: FileType | string;
  /** 1-based place in the course order. */
  lesson_position: number;
  unlocked: boolean;
  /** When a locked lesson opens (null: open, or no date known). */
  unlocks_at: string | null;
}

/** "12 décembre à 15:04" (with the year when it is not this year's). */
export function unlockDate(unlocksAt: string, now: Date = new Date()): string {
  const date = new Date(unlocksAt);
  if (Number.isNaN(date.getTime())) return "";
  return format(date, isSameYear(date, now) ? "d MMMM 'à' HH:mm" : "d MMMM yyyy 'à' HH:mm", { locale: fr });
}

/** "Disponible le 12 décembre à 15:04", or "Verrouillée" when the server gives no date. */
export function lockedLabel(lesson: Pick<OutlineLesson, "unlocks_at">, now: Date = new Date()): string {
  const when = lesson.unlocks_at ? unlockDate(lesson.unlocks_at, now) : "";
  return when ? `Disponible le ${when}` : "Verrouillée";
}

/** "Disponible le 12 déc." for the carousel's small buttons. */
export function shortUnlockDate(unlocksAt: string | null): string {
  if (!unlocksAt) return "";
  const date = new Date(unlocksAt);
  return Number.isNaN(date.getTime()) ? "" : format(date, "d MMM", { locale: fr });
}

/** The next lesson to open and when, for the course page's banner (null: nothing scheduled). */
export function nextUnlock(outline: readonly OutlineLesson[]): OutlineLesson | null {
  const upcoming = outline.filter((l) => !l.unlocked && l.unlocks_at).sort((a, b) => a.unlocks_at!.localeCompare(b.unlocks_at!));
  return upcoming[0] ?? null;
}
