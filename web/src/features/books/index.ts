// The books feature's public entry: what the rest of the app may use.
export { BOOKS_BUCKET, bookAccessMap, bookCoverUrl, bookDownloadUrl, deleteBook, hasFullAccess, listBooks } from "./api/books";
export { BookCover } from "./components/book-cover";
export { BookDialog, BookStateBadge } from "./components/book-dialog";
export { bookCardState, coverUrl } from "./lib/book";
export type { BookCardState } from "./lib/book";
