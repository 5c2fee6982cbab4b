import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { bookKeys, deleteBook } from "@/features/books";
import { listBooksByTitle } from "@/features/admin/api/access";
import { uploadBook, type BookInput } from "@/features/admin/api/books";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import { useFailureToast } from "@/features/admin/hooks/use-failure-toast";
import type { ResumableOptions } from "@/lib/resumable-upload";
import type { Book } from "@/types/db";

/** Every book by title; a failed read says so in a toast (the list then shows empty). */
export function useAdminBooks() {
  const query = useQuery({ queryKey: adminKeys.books, queryFn: listBooksByTitle, staleTime: ADMIN_STALE_TIME });
  useFailureToast(query.error, "Impossible de charger les livres");
  return query;
}

// Both writes read every book list again (the shelf too) before they settle.

/** Stores the PDF (its progress reported, cancelled by the signal) and the optional cover, then the row. */
export function useUploadBook() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ input, progress }: { input: BookInput; progress?: ResumableOptions }) => uploadBook(input, progress),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: bookKeys.all }),
  });
}

/** Removes the book's access rows, files and row (the one deletion of the books feature). */
export function useDeleteBookEverywhere() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (book: Book) => deleteBook(book),
    onSuccess: () => Promise.all([queryClient.invalidateQueries({ queryKey: bookKeys.all }), queryClient.invalidateQueries({ queryKey: adminKeys.access })]),
  });
}
