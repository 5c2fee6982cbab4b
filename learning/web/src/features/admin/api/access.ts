import { supabase } from "@/lib/supabase";
import { serverError } from "@/lib/server-errors";
import type { Book, Course, CourseContent } from "@/types/db";

/** The user access summary, derived on the client. */
export interface AccessSummary {
  hasAccess: boolean;
  courses: Array<{ course_id: string; courses: Pick<Course, "id" | "title"> | null }>;
  books: Array<{ book_id: string; books: Pick<Book, "id" | "title"> | null }>;
  hasFullAccess: boolean;
  /** Content ids granted one by one (user_content_progress). */
  contentIds: Set<string>;
}

export async function loadAccessSummary(userId: string): Promise<AccessSummary> {
  const client = supabase();
  const [courses, books, full, content] = await Promise.all([
    client.from("course_access").select("course_id, courses(id, title)").eq("user_id", userId),
    client.from("user_book_access").select("book_id, books(id, title)").eq("user_id", userId),
    client.from("full_access_users").select("user_id").eq("user_id", userId),
    client.from("user_content_progress").select("content_id").eq("user_id", userId),
  ]);
  const error = courses.error ?? books.error ?? full.error ?? content.error;
  if (error) throw serverError(error, "Impossible de charger les données d'accès.");
  const summary = {
    courses: courses.data ?? [],
    books: books.data ?? [],
    hasFullAccess: (full.data ?? []).length > 0,
    contentIds: new Set((content.data ?? []).map((r) => r.content_id)),
  };
  return { ...summary, hasAccess: summary.hasFullAccess || summary.courses.length > 0 || summary.books.length > 0 };
}

export async function listAllCourses(): Promise<Course[]> {
  const { data, error } = await supabase().from("courses").select("*").order("created_at", { ascending: false });
  if (error) throw serverError(error, "Impossible de charger les cours");
  return data ?? [];
}

export async function listBooksByTitle(): Promise<Book[]> {
  const { data, error } = await supabase().from("books").select("*").order("title");
  if (error) throw serverError(error, "Impossible de charger les livres");
  return data ?? [];
}

/** Admin screens read content by course, ordered by order_index then created_at. */
export async function listContentInOrder(courseId: string): Promise<CourseContent[]> {
  const { data, error } = await supabase().from("course_content").select("*").eq("course_id", courseId).order("order_index").order("created_at");
  if (error) throw serverError(error, "Impossible de charger le contenu du cours.");
  return data ?? [];
}

async function currentUserId(): Promise<string> {
  const { data } = await supabase().auth.getSession();
  const id = data.session?.user.id;
  if (!id) throw new Error("Vous devez être connecté.");
  return id;
}

export async function grantCourse(userId: string, courseId: string): Promise<void> {
  const grantedBy = await currentUserId();
  const { error } = await supabase().from("course_access").insert({ user_id: userId, course_id: courseId, granted_by: grantedBy });
  if (error) throw error.code === "23505" ? new Error("Cet utilisateur a déjà accès à ce cours.") : serverError(error, "Impossible de mettre à jour l'accès au cours.");
}

export async function revokeCourse(userId: string, courseId: string): Promise<void> {
  const { error } = await supabase().from("course_access").delete().eq("user_id", userId).eq("course_id", courseId);
  if (error) throw serverError(error, "Impossible de mettre à jour l'accès.");
}

export async function grantBook(userId: string, bookId: string): Promise<void> {
  const grantedBy = await currentUserId();
  const { error } = await supabase().from("user_book_access").insert({ user_id: userId, book_id: bookId, granted_by: grantedBy });
  if (error) throw error.code === "23505" ? new Error("Cet utilisateur a déjà accès à ce livre.") : serverError(error, "Impossible de mettre à jour l'accès au livre.");
}

export async function revokeBook(userId: string, bookId: string): Promise<void> {
  const { error } = await supabase().from("user_book_access").delete().eq("user_id", userId).eq("book_id", bookId);
  if (error) throw serverError(error, "Impossible de mettre à jour l'accès au livre.");
}

/** Grant single: upsert with a timestamp. */
export async function grantContent(userId: string, courseId: string, contentId: string): Promise<void> {
  const { error } = await supabase()
    .from("user_content_progress")
    .upsert({ user_id: userId, course_id: courseId, content_id: contentId, unlocked_at: new Date().toISOString() });
  if (error) throw serverError(error, "Impossible de mettre à jour l'accès.");
}

export async function revokeContent(userId: string, contentId: string): Promise<void> {
  const { error } = await supabase().from("user_content_progress").delete().eq("user_id", userId).eq("content_id", contentId);
  if (error) throw serverError(error, "Impossible de mettre à jour l'accès.");
}

/** Bulk grant: one row per content; a duplicate (23505) is ignored. */
export async function bulkGrantContent(userId: string, items: Array<{ id: string; course_id: string }>): Promise<void> {
  for (const item of items) {
    const { error } = await supabase().from("user_content_progress").insert({ user_id: userId, course_id: item.course_id, content_id: item.id });
    if (error && error.code !== "23505") throw serverError(error, "Impossible de mettre à jour l'accès aux contenus sélectionnés.");
  }
}

/** Bulk revoke: deleted one at a time. */
export async function bulkRevokeContent(userId: string, contentIds: string[]): Promise<void> {
  for (const id of contentIds) await revokeContent(userId, id);
}

/** Bulk course grant: a course the user already has (23505) is skipped. */
export async function bulkGrantCourses(userId: string, courseIds: string[]): Promise<void> {
  const grantedBy = await currentUserId();
  for (const courseId of courseIds) {
    const { error } = await supabase().from("course_access").insert({ user_id: userId, course_id: courseId, granted_by: grantedBy });
    if (error && error.code !== "23505") throw serverError(error, "Impossible de mettre à jour l'accès aux contenus sélectionnés.");
  }
}

/** One access change for a user, as the access dialog asks it. */
export type AccessWrite =
  | { target: "course" | "book"; id: string; grant: boolean }
  | { target: "content"; id: string; courseId: string; grant: boolean }
  | { target: "bulk"; grant: boolean; courseIds: string[]; content: Array<{ id: string; course_id: string }> };

export async function applyAccessWrite(userId: string, write: AccessWrite): Promise<void> {
  switch (write.target) {
    case "course":
      return write.grant ? grantCourse(userId, write.id) : revokeCourse(userId, write.id);
    case "book":
      return write.grant ? grantBook(userId, write.id) : revokeBook(userId, write.id);
    case "content":
      return write.grant ? grantContent(userId, write.courseId, write.id) : revokeContent(userId, write.id);
    case "bulk":
      if (write.grant) {
        await bulkGrantCourses(userId, write.courseIds);
        await bulkGrantContent(userId, write.content);
      } else {
        for (const id of write.courseIds) await revokeCourse(userId, id);
        await bulkRevokeContent(userId, write.content.map((c) => c.id));
      }
  }
}
