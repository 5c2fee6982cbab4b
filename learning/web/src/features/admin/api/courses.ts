import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import { serverError } from "@/lib/server-errors";
import type { Course, CourseContent, FileType, Visibility } from "@/types/db";
import { CONTENT_BUCKET } from "@/features/courses";
import { COVERS_BUCKET, uploadCover } from "@/features/admin/api/covers";
import { nextOrderIndex } from "@/features/admin/lib/content-file";
import { contentTypeOf, isCancelledUpload, resumableUpload, type ResumableOptions } from "@/lib/resumable-upload";

export interface CourseInput {
  title: string;
  description: string;
  visibility: Visibility;
  cover: File | null;
}

async function currentUserId(): Promise<string> {
  const { data } = await supabase().auth.getSession();
  const id = data.session?.user.id;
  if (!id) throw new Error("Vous devez être connecté.");
  return id;
}

/** The cover's upload may fail: the course is then saved without (a warning is shown). */
async function tryCover(file: File | null): Promise<{ path: string | null; failed: boolean }> {
  if (!file) return { path: null, failed: false };
  try {
    return { path: await uploadCover("courses", file), failed: false };
  } catch (error) {
    console.warn("cover upload failed", error);
    return { path: null, failed: true };
  }
}

export async function createCourse(input: CourseInput): Promise<{ course: Course; coverFailed: boolean }> {
  const createdBy = await currentUserId();
  const cover = await tryCover(input.cover);
  const { data, error } = await supabase()
    .from("courses")
    .insert({ title: input.title.trim(), description: input.description.trim() || null, created_by: createdBy, visibility: input.visibility, cover_url: cover.path })
    .select()
    .single();
  if (error) {
    if (cover.path) await supabase().storage.from(COVERS_BUCKET).remove([cover.path]);
    throw textLimitError(error) ?? serverError(error, "Impossible de créer le cours.");
  }
  return { course: data, coverFailed: cover.failed };
}

export async function updateCourse(course: Course, input: CourseInput): Promise<{ course: Course; coverFailed: boolean }> {
  await currentUserId();
  const cover = await tryCover(input.cover);
  const { data, error } = await supabase()
    .from("courses")
    .update({ title: input.title.trim(), description: input.description.trim() || null, visibility: input.visibility, cover_url: cover.path ?? course.cover_url })
    .eq("id", course.id)
    .select()
    .single();
  if (error) throw textLimitError(error) ?? serverError(error, "Impossible de mettre à jour le cours.");
  // The replaced cover is no longer referenced.
  if (cover.path && course.cover_url && !/^https?:/i.test(course.cover_url)) await supabase().storage.from(COVERS_BUCKET).remove([course.cover_url]);
  return { course: data, coverFailed: cover.failed };
}

/** The row first, then its content files (a "not found" from storage is fine). */
export async function deleteCourse(course: Course): Promise<void> {
  const client = supabase();
  const { data: items } = await client.from("course_content").select("file_path").eq("course_id", course.id);
  const { error } = await client.from("courses").delete().eq("id", course.id);
  if (error) throw serverError(error, "Impossible de supprimer le cours.");
  const paths = (items ?? []).map((r: { file_path: string | null }) => r.file_path).filter((p): p is string => !!p);
  if (paths.length) {
    const { error: removeError } = await client.storage.from(CONTENT_BUCKET).remove(paths);
    if (removeError) console.warn("course files removal", removeError);
  }
  if (course.cover_url && !/^https?:/i.test(course.cover_url)) await client.storage.from(COVERS_BUCKET).remove([course.cover_url]);
}

export async function getCourseById(courseId: string): Promise<Course | null> {
  const { data, error } = await supabase().from("courses").select("*").eq("id", courseId).maybeSingle();
  if (error) {
    if (error.code === "22P02") return null;
    throw error;
  }
  return data;
}

export interface NewContent {
  courseId: string;
  title: string;
  description: string;
  fileType: FileType;
  file: File | null;
  embedUrl: string | null;
}

/**
 * The file is stored (a resumable upload, its progress reported), then the row inserted; the
 * file is removed if the insert fails. A cancelled upload rejects with its own error.
 */
export async function addContent(input: NewContent, existing: CourseContent[], objectPath: (name: string) => string, progress: ResumableOptions = {}): Promise<CourseContent> {
  const createdBy = await currentUserId();
  const client = supabase();
  let filePath: string | null = null;
  if (input.fileType !== "video") {
    if (!input.file) throw new Error("Aucun fichier n'a été fourni");
    try {
      filePath = await resumableUpload(input.file, { bucket: CONTENT_BUCKET, objectName: objectPath(input.file.name), contentType: contentTypeOf(input.file), cacheControl: "3600", upsert: false }, progress);
    } catch (error) {
      if (isCancelledUpload(error)) throw error;
      throw new Error(`Échec du téléversement du fichier : ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
  const order = nextOrderIndex(existing);
  const { data, error } = await client
    .from("course_content")
    .insert({
      course_id: input.courseId,
      title: input.title.trim(),
      description: input.description.trim() || null,
      file_path: filePath,
      file_type: input.fileType,
      file_size: input.file && input.fileType !== "video" ? input.file.size : null,
      video_embed_url: input.fileType === "video" ? input.embedUrl : null,
      created_by: createdBy,
      order_index: order,
    })
    .select()
    .single();
  if (error) {
    if (filePath) await client.storage.from(CONTENT_BUCKET).remove([filePath]);
    throw textLimitError(error) ?? serverError(error, "Impossible d'ajouter le contenu.");
  }
  return data;
}

export async function updateContent(id: string, title: string, description: string): Promise<void> {
  const { error } = await supabase().from("course_content").update({ title: title.trim(), description: description.trim() || null }).eq("id", id);
  if (error) throw textLimitError(error) ?? serverError(error, "Impossible de mettre à jour le contenu.");
}

/** Reads file_path, removes the stored file, deletes the row. */
export async function deleteContent(id: string): Promise<void> {
  const client = supabase();
  const { data, error: readError } = await client.from("course_content").select("file_path").eq("id", id).single();
  if (readError) throw serverError(readError, "Impossible de charger le contenu.");
  const path = (data as { file_path: string | null }).file_path;
  if (path) {
    const { error } = await client.storage.from(CONTENT_BUCKET).remove([path]);
    if (error && !/not.?found/i.test(error.message)) console.warn("content file removal", error);
  }
  const { error } = await client.from("course_content").delete().eq("id", id);
  if (error) throw serverError(error, "Impossible de supprimer le contenu.");
}

/**
 * Signed URL (1 h) of a lesson's file served as an attachment, so following it downloads the
 * file instead of opening it; the link that follows it names the saved file.
 */
export async function contentFileDownloadUrl(filePath: string): Promise<string> {
  const { data, error } = await supabase().storage.from(CONTENT_BUCKET).createSignedUrl(filePath, 3600, { download: true });
  if (error || !data?.signedUrl) throw serverError(error, "Impossible de télécharger le contenu");
  return data.signedUrl;
}
