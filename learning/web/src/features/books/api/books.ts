import { supabase } from "@/lib/supabase";
import { appConfig } from "@/config/app";
import type { Book } from "@/types/db";
import { COVERS_BUCKET, coverUrl } from "@/features/books/lib/book";

export const BOOKS_BUCKET = "books";
export const SIGNED_URL_SECONDS = 3600;

export async function listBooks(): Promise<Book[]> {
  const { data, error } = await supabase().from("books").select("*").order("created_at", { ascending: false });
  if (error) throw error;
  return data ?? [];
}

/**
 * How many books are on the shelf: a head request counting rows (Prefer: count=exact). The
 * shelf is listed to everyone (policies/books.sql: books_select for anon), so a visitor's
 * count is the real one, and no book is sent.
 */
export async function countBooks(): Promise<number> {
  const { count, error } = await supabase().from("books").select("id", { count: "exact", head: true });
  if (error) throw error;
  return count ?? 0;
}

/** A failed check means no access. */
export async function hasBookAccess(userId: string, bookId: string): Promise<boolean> {
  const { data, error } = await supabase().rpc("user_has_book_access", { user_id: userId, book_id: bookId });
  if (error) return false;
  return data === true;
}

export async function hasFullAccess(userId: string): Promise<boolean> {
  const { data, error } = await supabase().rpc("user_has_full_access", { user_id: userId });
  if (error) return false;
  return data === true;
}

export async function bookAccessMap(userId: string, books: Book[]): Promise<Record<string, boolean>> {
  const entries = await Promise.all(books.map(async (b) => [b.id, await hasBookAccess(userId, b.id)] as const));
  return Object.fromEntries(entries);
}

export function bookCoverUrl(book: Pick<Book, "cover_url">): string | null {
  return coverUrl(appConfig.supabaseUrl, book.cover_url);
}

/** A signed URL (3600 s) for the book's PDF; public URL as fallback. */
export async function bookDownloadUrl(bookId: string): Promise<string> {
  const { data: book, error } = await supabase().from("books").select("file_path, title").eq("id", bookId).single();
  if (error) throw new Error("Livre introuvable : il a peut-être été supprimé.", { cause: error });
  if (!book?.file_path) throw new Error("Ce livre n'a pas de fichier PDF associé.");
  const bucket = supabase().storage.from(BOOKS_BUCKET);
  const { data: signed, error: signError } = await bucket.createSignedUrl(book.file_path, SIGNED_URL_SECONDS, { download: `${book.title}.pdf` });
  if (signError || !signed?.signedUrl) {
    // A restricted book is refused here by the storage policies.
    if (signError && /not.?found|denied|unauthorized|row-level/i.test(signError.message)) throw new Error(/not.?found/i.test(signError.message) ? "Le fichier du livre est introuvable sur le serveur." : "Vous n'avez pas accès à ce livre.");
    const { data: pub } = bucket.getPublicUrl(book.file_path);
    if (!pub?.publicUrl) throw new Error("Impossible de générer l'URL de téléchargement. Réessayez plus tard.");
    return pub.publicUrl;
  }
  return signed.signedUrl;
}

/**
 * Access rows, then the PDF (books bucket), then the cover (covers bucket: it used to be asked
 * of the books bucket, where it never is), then the row; the first three may fail.
 */
export async function deleteBook(book: Pick<Book, "id" | "file_path" | "cover_url">): Promise<void> {
  const client = supabase();
  const steps: Array<() => PromiseLike<{ error: unknown }>> = [
    () => client.from("user_book_access").delete().eq("book_id", book.id),
    () => (book.file_path ? client.storage.from(BOOKS_BUCKET).remove([book.file_path]) : Promise.resolve({ error: null })),
    () => (book.cover_url && !/^https?:/i.test(book.cover_url) ? client.storage.from(COVERS_BUCKET).remove([book.cover_url]) : Promise.resolve({ error: null })),
  ];
  for (const step of steps) {
    const { error } = await step();
    if (error) console.warn("book deletion step failed", error);
  }
  const { error } = await client.from("books").delete().eq("id", book.id);
  if (error) throw new Error("Impossible de supprimer le livre.", { cause: error });
}
