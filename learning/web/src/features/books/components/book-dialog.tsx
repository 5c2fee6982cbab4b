import { Link } from "react-router-dom";
import { DownloadIcon, FileTextIcon, Loader2Icon, LockIcon, LogInIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { formatFileSize, formatDateFr } from "@/lib/format";
import type { Book } from "@/types/db";
import type { BookCardState } from "@/features/books/lib/book";
import { BookCover } from "./book-cover";

export function BookStateBadge({ state }: { state: BookCardState }) {
  if (state === "downloadable") return <Badge variant="success">Disponible</Badge>;
  if (state === "restricted")
    return (
      <Badge variant="secondary">
        <LockIcon aria-hidden /> Accès restreint
      </Badge>
    );
  return (
    <Badge variant="outline">
      <LogInIcon aria-hidden /> Connexion requise
    </Badge>
  );
}

export function BookDialog({
  book,
  cover,
  state,
  downloading,
  onDownload,
  onOpenChange,
}: {
  book: Book | null;
  cover: string | null;
  state: BookCardState;
  downloading: boolean;
  onDownload: () => void;
  onOpenChange: (open: boolean) => void;
}) {
  return (
    <Dialog open={!!book} onOpenChange={onOpenChange}>
      <DialogContent className="sm:max-w-2xl">
        {book && (
          <div className="grid gap-6 sm:grid-cols-[180px_1fr]">
            <BookCover src={cover} title={book.title} className="mx-auto max-w-[180px]" />
            <div className="flex flex-col gap-4">
              <DialogHeader>
                <DialogTitle>{book.title}</DialogTitle>
                <DialogDescription className="whitespace-pre-line">{book.description || "Pas de description disponible."}</DialogDescription>
              </DialogHeader>
              <dl className="text-muted-foreground grid grid-cols-2 gap-3 text-sm">
                {book.pages ? (
                  <div>
                    <dt className="text-xs uppercase">Pages</dt>
                    <dd className="text-foreground font-medium">{book.pages}</dd>
                  </div>
                ) : null}
                {book.file_size ? (
                  <div>
                    <dt className="text-xs uppercase">Taille</dt>
                    <dd className="text-foreground font-medium">{formatFileSize(book.file_size)}</dd>
                  </div>
                ) : null}
                <div>
                  <dt className="text-xs uppercase">Format</dt>
                  <dd className="text-foreground flex items-center gap-1 font-medium">
                    <FileTextIcon className="size-4" aria-hidden /> PDF
                  </dd>
                </div>
                <div>
                  <dt className="text-xs uppercase">Ajouté le</dt>
                  <dd className="text-foreground font-medium">{formatDateFr(book.created_at)}</dd>
                </div>
              </dl>
              <div className="mt-auto">
                {state === "downloadable" && (
                  <Button onClick={onDownload} disabled={downloading} className="w-full sm:w-auto">
                    {downloading ? <Loader2Icon className="animate-spin" aria-hidden /> : <DownloadIcon aria-hidden />}
                    {downloading ? "Téléchargement en cours" : "Télécharger le PDF"}
                  </Button>
                )}
                {state === "restricted" && (
                  <div className="bg-muted rounded-lg p-4 text-sm">
                    <p className="flex items-center gap-2 font-medium">
                      <LockIcon className="size-4" aria-hidden /> Accès restreint
                    </p>
                    <p className="text-muted-foreground mt-1">Ce livre n'est pas inclus dans votre accès. Contactez-nous pour l'obtenir.</p>
                    <Button asChild variant="outline" size="sm" className="mt-3">
                      <Link to="/contact">Nous contacter</Link>
                    </Button>
                  </div>
                )}
                {state === "login-required" && (
                  <div className="bg-muted rounded-lg p-4 text-sm">
                    <p className="font-medium">Connexion requise</p>
                    <p className="text-muted-foreground mt-1">Connectez-vous pour télécharger ce livre.</p>
                    <div className="mt-3 flex gap-2">
                      <Button asChild size="sm">
                        <Link to="/connexion">Connexion</Link>
                      </Button>
                      <Button asChild variant="outline" size="sm">
                        <Link to="/inscription">Inscription</Link>
                      </Button>
                    </div>
                  </div>
                )}
              </div>
            </div>
          </div>
        )}
      </DialogContent>
    </Dialog>
  );
}
