import { supabase } from "@/lib/supabase";
import { appConfig } from "@/config/app";
import type { Course, CourseContent } from "@/types/db";
import { coverUrl } from "@/features/books";
import type { OutlineLesson } from "@/features/courses/lib/unlock";
import type { CourseProgress } from "@/features/courses/lib/progress";

export const CONTENT_BUCKET = "course-content";

/** Signed in: get_visible_courses; visitor: public courses, newest first. */
export async function listVisibleCourses(userId: string | null): Promise<Course[]> {
  if (userId) {
    const { data, error } = await supabase().rpc("get_visible_courses", { user_id: userId });
    if (error) throw error;
    return (data ?? []).sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? ""));
  }
  const { data, error } = await supabase().from("courses").select("*").eq("visibility", "public").order("created_at", { ascending: false });
  if (error) throw error;
  return data ?? [];
}

/** What anyone may read of a course by its id (rpc get_course_summary), private ones included. */
export type CourseSummary = Pick<Course, "id" | "title" | "description" | "visibility" | "cover_url" | "created_at"> & { lesson_count: number };

/** A course's public summary, or null when no course has that id (visitors follow shared links). */
export async function getCourseSummary(courseId: string): Promise<CourseSummary | null> {
  const { data, error } = await supabase().rpc("get_course_summary", { course_id: courseId });
  if (error) {
    if (error.code === "22P02") return null;
    throw error;
  }
  return (data ?? [])[0] ?? null;
}

/**
 * Progress per course (rpc get_course_progress): lessons watched over lessons unlocked to the
 * learner, decided by the database. The learner's own; an admin may ask about anyone. Without
 * a course, the courses where something is unlocked.
 */
export async function getCourseProgress(userId: string, courseId?: string): Promise<Map<string, CourseProgress>> {
  const { data, error } = await supabase().rpc("get_course_progress", courseId ? { user_id: userId, course_id: courseId } : { user_id: userId });
  if (error) throw error;
  return new Map((data ?? []).map((row) => [row.course_id, row]));
}

export async function getCourse(courseId: string): Promise<Course | null> {
  const { data, error } = await supabase().from("courses").select("*").eq("id", courseId).maybeSingle();
  if (error) {
    // A malformed id is "not found" for the learner, not a failure.
    if (error.code === "22P02") return null;
    throw error;
  }
  return data;
}

/** If the check fails, access falls back to true only for public courses. */
export async function hasCourseAccess(userId: string, course: Pick<Course, "id" | "visibility">): Promise<boolean> {
  const { data, error } = await supabase().rpc("user_has_course_access", { user_id: userId, course_id: course.id });
  if (error) return course.visibility === "public";
  return data === true;
}

/** Signed in: get_visible_course_content; visitor: course_content by course (public only). */
export async function listCourseContent(userId: string | null, course: Pick<Course, "id" | "visibility">): Promise<CourseContent[]> {
  if (userId) {
    const { data, error } = await supabase().rpc("get_visible_course_content", { user_id: userId, course_id: course.id });
    if (error) throw new Error("Impossible de charger le contenu du cours.", { cause: error });
    return sortByOrder(data ?? []);
  }
  if (course.visibility !== "public") throw new Error("Connectez-vous pour voir le contenu de ce cours.");
  const { data, error } = await supabase().from("course_content").select("*").eq("course_id", course.id).order("created_at", { ascending: false });
  if (error) throw new Error("Impossible de charger le contenu du cours.", { cause: error });
  return sortByOrder(data ?? []);
}

/**
 * The caller's outline of the course (rpc get_course_outline): with course access every
 * lesson, locked ones flagged with the date they open; otherwise the lessons granted one by
 * one. Never a locked lesson's file or embed URL.
 */
export async function getCourseOutline(courseId: string): Promise<OutlineLesson[]> {
  const { data, error } = await supabase().rpc("get_course_outline", { course_id: courseId });
  if (error) throw error;
  return (data ?? []).sort((a, b) => a.lesson_position - b.lesson_position);
}

export interface LessonStatus {
  course_id: string;
  /** null: the caller has no access to the course. */
  unlocked: boolean | null;
  unlocks_at: string | null;
}

/** A lesson the caller cannot read: its course and when it opens, or null when it does not exist. */
export async function getLessonStatus(contentId: string): Promise<LessonStatus | null> {
  const { data, error } = await supabase().rpc("get_lesson_status", { content_id: contentId });
  if (error) {
    if (error.code === "22P02") return null;
    throw error;
  }
  return (data ?? [])[0] ?? null;
}

/** An outline from lessons the server returned in full (all open). */
export function openOutline(items: CourseContent[]): OutlineLesson[] {
  return items.map((c, i) => ({ id: c.id, title: c.title, file_type: c.file_type, lesson_position: i + 1, unlocked: true, unlocks_at: null }));
}

export function sortByOrder(items: CourseContent[]): CourseContent[] {
  return [...items].sort((a, b) => (a.order_index ?? 0) - (b.order_index ?? 0) || a.created_at.localeCompare(b.created_at));
}

export async function getContentWithCourse(contentId: string): Promise<(CourseContent & { courses: Course | null }) | null> {
  const { data, error } = await supabase().from("course_content").select("*, courses(*)").eq("id", contentId).maybeSingle();
  if (error) {
    if (error.code === "22P02") return null;
    throw error;
  }
  return data as (CourseContent & { courses: Course | null }) | null;
}

export async function viewedContentIds(userId: string): Promise<Set<string>> {
  const { data, error } = await supabase().from("content_views").select("content_id").eq("user_id", userId);
  if (error) throw error;
  return new Set((data ?? []).map((r: { content_id: string }) => r.content_id));
}

/** Records a view once; a duplicate (23505) is ignored. */
export async function recordView(userId: string, contentId: string): Promise<void> {
  const { error } = await supabase().from("content_views").insert({ user_id: userId, content_id: contentId });
  if (error && error.code !== "23505") throw error;
}

export function courseCoverUrl(course: Pick<Course, "cover_url">): string | null {
  return coverUrl(appConfig.supabaseUrl, course.cover_url);
}

/** Signed URL (3600 s) of a content file from course-content; public URL as fallback. */
export async function contentDownloadUrl(contentId: string): Promise<{ url?: string; error?: string }> {
  const { data, error } = await supabase().from("course_content").select("file_path, title").eq("id", contentId).single();
  if (error) return { error: "Contenu introuvable : il a peut-être été supprimé." };
  if (!data?.file_path) return { error: "Aucun fichier associé à ce contenu" };
  const bucket = supabase().storage.from(CONTENT_BUCKET);
  const { data: signed, error: signError } = await bucket.createSignedUrl(data.file_path, 3600);
  if (!signError && signed?.signedUrl) return { url: signed.signedUrl };
  const { data: pub } = bucket.getPublicUrl(data.file_path);
  return pub?.publicUrl ? { url: pub.publicUrl } : { error: "Impossible de générer l'URL de téléchargement" };
}

/** A viewable URL for an image lesson. */
export async function contentImageUrl(filePath: string): Promise<string | null> {
  if (/^https?:\/\//i.test(filePath)) return filePath;
  const { data, error } = await supabase().storage.from(CONTENT_BUCKET).createSignedUrl(filePath, 3600);
  if (error || !data?.signedUrl) return null;
  return data.signedUrl;
}
