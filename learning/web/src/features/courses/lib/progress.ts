import { MOBILE_BREAKPOINT } from "@/lib/use-media";

/**
 * A learner's progress in a course, as the database decides it (rpc get_course_progress):
 * lessons watched (content_views) over lessons unlocked to them (schedule, grants, course
 * access). A lesson granted by an admin is unlocked, not completed; the course is completed
 * once every one of its lessons has been watched.
 */
export interface CourseProgress {
  course_id: string;
  watched_count: number;
  unlocked_count: number;
  lesson_count: number;
  /** watched over unlocked, rounded down: 100 only when every unlocked lesson is watched. */
  percent: number;
  completed: boolean;
}

/** Nothing unlocked, nothing watched (no row from the server). */
export function noProgress(courseId: string, lessonCount = 0): CourseProgress {
  return { course_id: courseId, watched_count: 0, unlocked_count: 0, lesson_count: lessonCount, percent: 0, completed: false };
}

/** "0/1 leçon vue", "2/3 leçons vues": the first part of progressText. */
export function progressCounts(p: CourseProgress): string {
  const plural = p.unlocked_count > 1 ? "s" : "";
  return `${p.watched_count}/${p.unlocked_count} leçon${plural} vue${plural}`;
}

/** "0/1 leçon vue · 0 %", "2/3 leçons vues · 66 %": the same words on every screen. */
export function progressText(p: CourseProgress): string {
  return `${progressCounts(p)} · ${p.percent} %`;
}

/** Every unlocked lesson watched while the schedule still holds some back: up to date, not finished. */
export function isUpToDate(p: CourseProgress): boolean {
  return !p.completed && p.unlocked_count > 0 && p.watched_count === p.unlocked_count;
}

/** A lesson is "terminée" once the learner has watched it (opened it: a content_views row). */
export type LessonState = "unviewed" | "watched";

export function lessonState(id: string, watched: ReadonlySet<string>): LessonState {
  return watched.has(id) ? "watched" : "unviewed";
}

export const CAROUSEL_PAGE_MOBILE = 4;
export const CAROUSEL_PAGE_DESKTOP = 8;

/** Splits lessons into carousel slides: 4 per slide under 768 px, 8 above. */
export function carouselSlides<T>(items: readonly T[], viewportWidth: number): T[][] {
  const size = viewportWidth < MOBILE_BREAKPOINT ? CAROUSEL_PAGE_MOBILE : CAROUSEL_PAGE_DESKTOP;
  const slides: T[][] = [];
  for (let i = 0; i < items.length; i += size) slides.push(items.slice(i, i + size));
  return slides;
}
