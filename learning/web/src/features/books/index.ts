// The books feature's public entry: what the rest of the app may use.
export { BOOKS_BUCKET, bookCoverUrl, bookDownloadUrl, deleteBook, hasFullAccess } from "./api/books";
export { BookCover } from "./components/book-cover";
export { BookDialog, BookStateBadge } from "./components/book-dialog";
export { bookKeys, useBookCount, useBookShelf, useDeleteBook } from "./hooks/use-books";
export { bookCardState, COVERS_BUCKET, coverUrl } from "./lib/book";
export type { BookCardState } from "./lib/book";
