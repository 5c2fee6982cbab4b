import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { bookAccessMap, countBooks, deleteBook, hasFullAccess, listBooks } from "@/features/books/api/books";
import type { Book } from "@/types/db";

/** Query keys of the books: every list starts with "books" (a write invalidates them all). */
export const bookKeys = {
  all: ["books"] as const,
  shelf: (userId: string | null, isAdmin: boolean) => ["books", "shelf", userId, isAdmin] as const,
  count: ["books", "count"] as const,
};

/** The number of books on the shelf (undefined while read or when the read failed). */
export function useBookCount() {
  return useQuery({ queryKey: bookKeys.count, queryFn: countBooks });
}

export interface Shelf {
  books: Book[];
  /** Book id -> whether the signed-in user may download it (empty for a visitor). */
  access: Record<string, boolean>;
}

async function loadShelf(userId: string | null, isAdmin: boolean): Promise<Shelf> {
  const books = await listBooks();
  if (!userId) return { books, access: {} };
  const full = isAdmin || (await hasFullAccess(userId));
  return { books, access: full ? Object.fromEntries(books.map((b) => [b.id, true])) : await bookAccessMap(userId, books) };
}

/** Every book, with what the user may download; waits for `enabled` (the auth state known). */
export function useBookShelf(userId: string | null, isAdmin: boolean, enabled: boolean) {
  return useQuery({ queryKey: bookKeys.shelf(userId, isAdmin), queryFn: () => loadShelf(userId, isAdmin), enabled });
}

/** Deletes a book (its files, then its row); the book lists are read again before it settles. */
export function useDeleteBook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (book: Pick<Book, "id" | "file_path" | "cover_url">) => deleteBook(book),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: bookKeys.all }),
  });
}
