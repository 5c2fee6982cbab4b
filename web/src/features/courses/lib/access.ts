// What a signed-in learner may see of a course, from the server's answers only:
// user_has_course_access for the course, get_visible_course_content for its lessons.

/** full: course access; lessons: no course access but lessons granted one by one; none. */
export type CourseAccessLevel = "full" | "lessons" | "none";

export function courseAccessLevel(hasCourseAccess: boolean, visibleLessons: number): CourseAccessLevel {
  if (hasCourseAccess) return "full";
  return visibleLessons > 0 ? "lessons" : "none";
}

/** "1 leçon débloquée" / "3 leçons débloquées". */
export function grantedLessonsLabel(count: number): string {
  return `${count} leçon${count > 1 ? "s" : ""} débloquée${count > 1 ? "s" : ""}`;
}

export interface LessonAccessFacts {
  isAdmin: boolean;
  isPublicCourse: boolean;
  hasCourseAccess: boolean;
  /** Ids returned by get_visible_course_content for this user and course. */
  visibleIds: ReadonlySet<string>;
}

/** The lesson viewer opens a lesson for admins, public courses, course access, or a lesson the server lists as visible. */
export function mayOpenLesson(contentId: string, facts: LessonAccessFacts): boolean {
  return facts.isAdmin || facts.isPublicCourse || facts.hasCourseAccess || facts.visibleIds.has(contentId);
}
