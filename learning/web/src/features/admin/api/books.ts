import { supabase } from "@/lib/supabase";
import { textLimitError } from "@/lib/text-limits";
import { frenchError } from "@/lib/server-errors";
import { BOOKS_BUCKET } from "@/features/books";
import { COVERS_BUCKET, uploadCover } from "@/features/admin/api/covers";
import { timestampedName } from "@/features/admin/lib/content-file";
import { isCancelledUpload, resumableUpload, type ResumableOptions } from "@/lib/resumable-upload";
import type { Book } from "@/types/db";

export interface BookInput {
  title: string;
  description: string;
  pages: number;
  file: File | null;
  cover: File | null;
}

/**
 * The PDF first (a resumable upload, its progress reported), then the optional cover, then the
 * row; both files go if the insert fails. A cancelled upload rejects with its own error.
 */
export async function uploadBook(input: BookInput, progress: ResumableOptions = {}): Promise<{ book: Book; coverFailed: boolean }> {
  const client = supabase();
  const { data: session } = await client.auth.getSession();
  const userId = session.session?.user.id;
  if (!userId) throw new Error("Vous devez être connecté pour ajouter un livre.");
  if (!input.file) throw new Error("Aucun fichier n'a été fourni.");
  let filePath: string;
  try {
    filePath = await resumableUpload(input.file, { bucket: BOOKS_BUCKET, objectName: timestampedName(input.file.name), contentType: "application/pdf", cacheControl: "3600", upsert: false }, progress);
  } catch (error) {
    if (isCancelledUpload(error)) throw error;
    throw new Error(`Échec du téléversement du PDF : ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }

  // A cover failure (compression or upload) is logged only: the book is created without.
  let coverPath: string | null = null;
  let coverFailed = false;
  if (input.cover) {
    try {
      coverPath = await uploadCover("books", input.cover);
    } catch (error) {
      console.warn("cover upload failed", error);
      coverFailed = true;
    }
  }
  const { data, error } = await client
    .from("books")
    .insert({ title: input.title.trim(), description: input.description.trim() || null, pages: input.pages, file_size: input.file.size, file_path: filePath, cover_url: coverPath, created_by: userId })
    .select()
    .single();
  if (error) {
    await client.storage.from(BOOKS_BUCKET).remove([filePath]);
    if (coverPath) await client.storage.from(COVERS_BUCKET).remove([coverPath]);
    throw textLimitError(error) ?? new Error(`Le livre n'a pas pu être enregistré : ${frenchError(error, "erreur inconnue").toLowerCase()}`, { cause: error });
  }
  return { book: data, coverFailed };
}
