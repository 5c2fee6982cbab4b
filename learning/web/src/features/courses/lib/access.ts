// What a signed-in learner may see of a course, from the server's answers only:
// user_has_course_access for the course, get_visible_course_content for its lessons,
// get_lesson_status for a lesson opened by its address that RLS does not return.
import { unlockDate } from "@/features/courses/lib/unlock";

/** full: course access; lessons: no course access but lessons granted one by one; none. */
export type CourseAccessLevel = "full" | "lessons" | "none";

export function courseAccessLevel(hasCourseAccess: boolean, visibleLessons: number): CourseAccessLevel {
  if (hasCourseAccess) return "full";
  return visibleLessons > 0 ? "lessons" : "none";
}

/**
 * The sign-in or sign-up page, coming back to `next` (a path of this site, e.g. the course)
 * once signed in: /connexion?next=/course/{id}.
 */
export function authLink(page: "/connexion" | "/inscription", next: string): string {
  return `${page}?next=${encodeURIComponent(next)}`;
}

/** "1 leçon" / "3 leçons". */
export function lessonCountLabel(count: number): string {
  return `${count} leçon${count > 1 ? "s" : ""}`;
}

/** "1 leçon débloquée" / "3 leçons débloquées". */
export function grantedLessonsLabel(count: number): string {
  return `${count} leçon${count > 1 ? "s" : ""} débloquée${count > 1 ? "s" : ""}`;
}

/** What the server says of a lesson the caller cannot read (rpc get_lesson_status). */
export interface LessonStatusFacts {
  course_id: string;
  unlocked: boolean | null;
  unlocks_at: string | null;
}

export interface LessonRefusal {
  title: string;
  description: string;
  /** The lesson's course, to go back to (null: the lesson does not exist). */
  courseId: string | null;
}

export const NO_ACCESS_TITLE = "Vous n'avez pas accès à ce contenu";
export const NOT_FOUND_TITLE = "Contenu introuvable";

/** Why the lesson viewer cannot show a lesson: it does not exist, it is locked until a date, or no access. */
export function lessonRefusal(status: LessonStatusFacts | null, now: Date = new Date()): LessonRefusal {
  if (!status) return { title: NOT_FOUND_TITLE, description: "Cette leçon n'existe pas ou a été supprimée.", courseId: null };
  if (status.unlocked === false && status.unlocks_at) {
    const when = unlockDate(status.unlocks_at, now);
    return { title: NO_ACCESS_TITLE, description: `Cette leçon n'est pas encore débloquée. Elle sera disponible le ${when}.`, courseId: status.course_id };
  }
  if (status.unlocked === false) {
    return { title: NO_ACCESS_TITLE, description: "Cette leçon n'est pas encore débloquée.", courseId: status.course_id };
  }
  return { title: NO_ACCESS_TITLE, description: "Contactez le professeur pour obtenir l'accès à ce cours.", courseId: status.course_id };
}
