import { bookKeys } from "@/features/books";
import { courseKeys } from "@/features/courses";
import type { ScheduleValues } from "@/features/admin/lib/schedule";

/**
 * Query keys of the back-office. They share the roots of the app's other keys ("courses",
 * "course", "books", "profiles"), so a write invalidated by its root also refreshes the
 * learner screens that show the same rows.
 */
export const adminKeys = {
  /** Every course, newest first (course lists, access dialog). */
  courses: [...courseKeys.all, "all"] as const,
  /** Everything cached about one course: the admin's row and lessons, the learner's screens. */
  courseScreens: (courseId: string) => ["course", courseId] as const,
  course: (courseId: string) => ["course", courseId, "admin"] as const,
  /** The course's lessons by order_index then created_at. */
  lessons: (courseId: string) => ["course", courseId, "admin", "lessons"] as const,
  /** Lessons the signed-in admin has viewed ("Vu" badges). */
  views: (userId: string) => ["lesson-views", userId] as const,
  schedule: (courseId: string) => ["schedule", courseId] as const,
  /** The server's count of unlocked lessons for these values, after `days` days of access. */
  schedulePreview: (courseId: string, lessonCount: number, args: { values: ScheduleValues; days: number } | null) => ["schedule-preview", courseId, lessonCount, args] as const,
  /** Every book by title. */
  books: [...bookKeys.all, "by-title"] as const,
  profiles: ["profiles"] as const,
  allProfiles: ["profiles", "all"] as const,
  profile: (userId: string) => ["profiles", "one", userId] as const,
  /** Access rows: who holds any (the users table's dot) and one user's summary. */
  access: ["access"] as const,
  accessHolders: ["access", "holders"] as const,
  accessOf: (userId: string) => ["access", "user", userId] as const,
};

/** The back-office shows what the database holds now: cached rows show at once and are read again at each visit. */
export const ADMIN_STALE_TIME = 0;
