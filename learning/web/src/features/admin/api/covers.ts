import { supabase } from "@/lib/supabase";
import { serverError } from "@/lib/server-errors";
import { resizeCover } from "@/features/admin/lib/resize-cover";
import { coverFileName } from "@/features/admin/lib/cover-size";
import { COVERS_BUCKET } from "@/features/books";

export { COVERS_BUCKET };

/** Compresses (300 px wide JPEG) and stores a cover; returns its object name. */
export async function uploadCover(folder: "books" | "courses", file: File): Promise<string> {
  if (!file.type.startsWith("image/")) throw new Error("Seuls les fichiers image sont acceptés pour la couverture");
  const blob = await resizeCover(file);
  const random = Math.random().toString(36).slice(2, 10);
  const path = `${folder}/${Date.now()}_${random}_${coverFileName(file.name)}`;
  const { error } = await supabase().storage.from(COVERS_BUCKET).upload(path, blob, { cacheControl: "3600", upsert: false, contentType: "image/jpeg" });
  if (error) throw serverError(error, "Impossible de téléverser l'image de couverture.");
  return path;
}
