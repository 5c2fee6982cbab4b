import * as React from "react";
import { Link } from "react-router-dom";
import { toast } from "sonner";
import { ArrowLeftIcon, BookXIcon, DownloadIcon, Loader2Icon, LockIcon, Trash2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import {
  AlertDialog,
  AlertDialogAction,
  AlertDialogCancel,
  AlertDialogContent,
  AlertDialogDescription,
  AlertDialogFooter,
  AlertDialogHeader,
  AlertDialogTitle,
} from "@/components/ui/alert-dialog";
import { EmptyState, ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { SearchInput } from "@/components/search-input";
import { useAuth } from "@/features/auth";
import { bookCoverUrl, bookDownloadUrl, bookCardState, type BookCardState, BookCover, BookDialog, BookStateBadge, useBookShelf, useDeleteBook } from "@/features/books";
import { formatFileSize, matchesSearch } from "@/lib/format";
import { saveFileWithToast } from "@/lib/download";
import { useDocumentTitle } from "@/lib/use-document-title";
import { useErrorToast } from "@/lib/use-error-toast";
import type { Book } from "@/types/db";

type Status = "loading" | "ready" | "error";

export default function Books() {
  useDocumentTitle("Livres d'anglais");
  const { user, isAdmin, loading: authLoading } = useAuth();
  const userId = user?.id ?? null;
  const shelf = useBookShelf(userId, isAdmin, !authLoading);
  const remove = useDeleteBook();
  const [search, setSearch] = React.useState("");
  const [selected, setSelected] = React.useState<Book | null>(null);
  const [downloading, setDownloading] = React.useState<string | null>(null);
  const [toDelete, setToDelete] = React.useState<Book | null>(null);
  useErrorToast(shelf.error, "Impossible de charger les livres.");
  // A retry after a failure shows the skeleton again.
  const status: Status = shelf.isError && !shelf.isFetching ? "error" : shelf.data && !shelf.isError ? "ready" : "loading";
  const books = shelf.data?.books ?? [];
  const access = shelf.data?.access ?? {};

  const stateOf = (b: Book): BookCardState => bookCardState(!!userId, !!access[b.id]);
  const visible = books.filter((b) => matchesSearch(b, search));

  const download = async (book: Book) => {
    if (downloading) return;
    setDownloading(book.id);
    try {
      await saveFileWithToast(() => bookDownloadUrl(book.id), `${book.title}.pdf`, "Impossible de télécharger le livre.");
    } finally {
      setDownloading(null);
    }
  };

  const confirmDelete = async () => {
    if (!toDelete) return;
    try {
      await remove.mutateAsync(toDelete);
      toast.success("Livre supprimé");
    } catch (e) {
      toast.error("Erreur", { description: e instanceof Error ? e.message : "Impossible de supprimer le livre." });
    } finally {
      setToDelete(null);
    }
  };

  return (
    <PageContainer>
      <Button asChild variant="ghost" size="sm" className="-ml-2 mb-4">
        <Link to="/">
          <ArrowLeftIcon aria-hidden /> Retour à l'accueil
        </Link>
      </Button>
      <div className="mb-8 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Livres d'anglais</h1>
          <p className="text-muted-foreground mt-2">Téléchargez les livres PDF inclus dans votre accès.</p>
        </div>
        <SearchInput value={search} onChange={setSearch} placeholder="Rechercher un livre..." />
      </div>

      {status === "loading" && (
        <div className="grid grid-cols-2 gap-x-5 gap-y-8 sm:grid-cols-3 md:grid-cols-4 lg:grid-cols-5">
          {Array.from({ length: 10 }, (_, i) => (
            <div key={i} className="space-y-3">
              <Skeleton className="aspect-[3/4] w-full" />
              <Skeleton className="h-4 w-3/4" />
              <Skeleton className="h-4 w-1/2" />
            </div>
          ))}
        </div>
      )}

      {status === "error" && (
        <ErrorPanel title="Impossible de charger les livres." action={<Button variant="outline" onClick={() => void shelf.refetch()}>Réessayer</Button>} />
      )}

      {status === "ready" && books.length === 0 && <EmptyState icon={<BookXIcon className="size-10" aria-hidden />} title="Aucun livre n'a été trouvé." />}
      {status === "ready" && books.length > 0 && visible.length === 0 && <EmptyState title="Aucun livre ne correspond à votre recherche." />}

      {status === "ready" && visible.length > 0 && (
        <ul className="grid grid-cols-2 gap-x-5 gap-y-8 sm:grid-cols-3 md:grid-cols-4 lg:grid-cols-5" aria-label="Étagère de livres">
          {visible.map((book) => {
            const state = stateOf(book);
            return (
              <li key={book.id} className="group flex flex-col" data-testid="book-card" data-state={state}>
                <button type="button" onClick={() => setSelected(book)} className="focus-visible:ring-ring/50 relative rounded-md text-left outline-none focus-visible:ring-[3px]">
                  {/* The name comes from this text, not aria-label: a typographic cover shows the title, and a label must contain what is seen. */}
                  <span className="sr-only">Voir le détail : {book.title}</span>
                  <BookCover decorative src={bookCoverUrl(book)} title={book.title} className="transition-transform duration-200 group-hover:-translate-y-1 group-hover:shadow-xl" />
                  {state === "restricted" && (
                    <span className="absolute top-2 right-2 flex size-7 items-center justify-center rounded-full bg-black/60 text-white">
                      <LockIcon className="size-3.5" aria-hidden />
                    </span>
                  )}
                </button>
                <div className="mt-3 flex flex-1 flex-col gap-2">
                  <h2 className="line-clamp-2 text-sm leading-snug font-semibold">{book.title}</h2>
                  <p className="text-muted-foreground text-xs">
                    {[book.pages ? `${book.pages} page${book.pages > 1 ? "s" : ""}` : null, formatFileSize(book.file_size) || null].filter(Boolean).join(" · ")}
                  </p>
                  <div className="mt-auto flex flex-wrap items-center gap-2">
                    {state === "downloadable" ? (
                      <Button size="sm" variant="outline" onClick={() => void download(book)} disabled={downloading === book.id} aria-label={`Télécharger ${book.title}`}>
                        {downloading === book.id ? <Loader2Icon className="animate-spin" aria-hidden /> : <DownloadIcon aria-hidden />}
                        Télécharger
                      </Button>
                    ) : (
                      <BookStateBadge state={state} />
                    )}
                    {isAdmin && (
                      <Button size="icon" variant="ghost" className="text-destructive size-8" onClick={() => setToDelete(book)} aria-label={`Supprimer ${book.title}`}>
                        <Trash2Icon aria-hidden />
                      </Button>
                    )}
                  </div>
                </div>
              </li>
            );
          })}
        </ul>
      )}

      <BookDialog
        book={selected}
        cover={selected ? bookCoverUrl(selected) : null}
        state={selected ? stateOf(selected) : "login-required"}
        downloading={!!selected && downloading === selected.id}
        onDownload={() => selected && void download(selected)}
        onOpenChange={(open) => !open && setSelected(null)}
      />

      <AlertDialog open={!!toDelete} onOpenChange={(open) => !open && setToDelete(null)}>
        <AlertDialogContent>
          <AlertDialogHeader>
            <AlertDialogTitle>Êtes-vous sûr ?</AlertDialogTitle>
            <AlertDialogDescription>Cette action supprimera définitivement ce livre et ne peut pas être annulée.</AlertDialogDescription>
          </AlertDialogHeader>
          <AlertDialogFooter>
            <AlertDialogCancel>Annuler</AlertDialogCancel>
            <AlertDialogAction onClick={() => void confirmDelete()}>Supprimer</AlertDialogAction>
          </AlertDialogFooter>
        </AlertDialogContent>
      </AlertDialog>
    </PageContainer>
  );
}
