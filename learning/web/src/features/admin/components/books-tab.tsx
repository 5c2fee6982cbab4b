import * as React from "react";
import { toast } from "sonner";
import { BookOpenIcon, Loader2Icon, Trash2Icon, UploadIcon } from "lucide-react";
import { Alert, AlertDescription } from "@/components/ui/alert";
import { Button } from "@/components/ui/button";
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from "@/components/ui/card";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { FormField, fieldAria } from "@/components/form-field";
import { FileInput } from "@/components/file-input";
import { UploadProgressPanel } from "@/components/upload-progress";
import { EmptyState, PageSpinner } from "@/components/layout/page-states";
import { BookCover, bookCoverUrl } from "@/features/books";
import { useAdminBooks, useDeleteBookEverywhere, useUploadBook } from "@/features/admin/hooks/use-books";
import { errorText } from "@/features/admin/lib/errors";
import { ConfirmDialog } from "@/features/admin/components/confirm-dialog";
import { formatDateFr, formatFileSize } from "@/lib/format";
import { isCancelledUpload } from "@/lib/resumable-upload";
import { useUploadTask } from "@/lib/use-upload-task";
import { tooLong } from "@/lib/text-limits";
import type { Book } from "@/types/db";

interface BookErrors {
  title?: string;
  description?: string;
  pages?: string;
  file?: string;
  cover?: string;
}

const isPdf = (f: File) => f.type === "application/pdf" || /\.pdf$/i.test(f.name);

export function BooksTab() {
  const query = useAdminBooks();
  const books = query.data ?? (query.isError ? [] : null);
  const deletion = useDeleteBookEverywhere();
  const [toDelete, setToDelete] = React.useState<Book | null>(null);

  const remove = async (book: Book) => {
    try {
      await deletion.mutateAsync(book);
      toast.success("Livre supprimé", { description: book.title });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de supprimer le livre.") });
    }
  };

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-[minmax(0,380px)_minmax(0,1fr)]">
      <Card className="h-fit">
        <CardHeader>
          <CardTitle>Ajouter un livre</CardTitle>
          <CardDescription>Un PDF et, si vous le souhaitez, une image de couverture.</CardDescription>
        </CardHeader>
        <CardContent>
          <BookUploadForm />
        </CardContent>
      </Card>
      <section aria-labelledby="admin-books-title" className="min-w-0">
        <h2 id="admin-books-title" className="mb-3 text-lg font-semibold">Livres ({books?.length ?? 0})</h2>
        {books === null ? (
          <PageSpinner label="Chargement des livres..." />
        ) : books.length === 0 ? (
          <EmptyState icon={<BookOpenIcon className="size-8" aria-hidden />} title="Aucun livre n'a été trouvé." />
        ) : (
          <ul className="grid grid-cols-1 gap-3">
            {books.map((b) => (
              <li key={b.id} className="bg-card flex min-w-0 items-center gap-3 rounded-lg border p-3" data-testid="admin-book" data-title={b.title}>
                <BookCover src={bookCoverUrl(b)} title={b.title} className="w-14 shrink-0" />
                <div className="min-w-0 flex-1">
                  <p className="truncate font-medium">{b.title}</p>
                  <p className="text-muted-foreground text-xs">
                    {b.pages ?? 0} page{(b.pages ?? 0) > 1 ? "s" : ""} · {formatFileSize(b.file_size, { gigabytes: true })} · {formatDateFr(b.created_at)}
                  </p>
                  {b.description && <p className="text-muted-foreground line-clamp-2 text-sm">{b.description}</p>}
                </div>
                <Button variant="ghost" size="icon" className="text-destructive" aria-label={`Supprimer ${b.title}`} onClick={() => setToDelete(b)}>
                  <Trash2Icon aria-hidden />
                </Button>
              </li>
            ))}
          </ul>
        )}
      </section>
      {toDelete && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setToDelete(null)}
          title="Êtes-vous sûr ?"
          description="Cette action supprimera définitivement ce livre et ne peut pas être annulée."
          confirmLabel="Supprimer"
          onConfirm={() => {
            const book = toDelete;
            setToDelete(null);
            void remove(book);
          }}
        />
      )}
    </div>
  );
}

function BookUploadForm() {
  const [title, setTitle] = React.useState("");
  const [description, setDescription] = React.useState("");
  const [pages, setPages] = React.useState("1");
  const [file, setFile] = React.useState<File | null>(null);
  const [cover, setCover] = React.useState<File | null>(null);
  const [errors, setErrors] = React.useState<BookErrors>({});
  const upload = useUploadBook();
  const task = useUploadTask();
  const cancelled = isCancelledUpload(upload.error);
  const failure = upload.error && !cancelled ? errorText(upload.error, "Une erreur s'est produite lors du téléchargement") : null;
  const busy = upload.isPending;
  const formRef = React.useRef<HTMLFormElement>(null);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    // A non-numeric page count becomes 0 (then fails the minimum of 1).
    const pageCount = Number.parseInt(pages, 10) || 0;
    const next: BookErrors = {};
    if (!title.trim()) next.title = "Le titre est obligatoire";
    else if (tooLong("bookTitle", title)) next.title = tooLong("bookTitle", title);
    if (tooLong("bookDescription", description)) next.description = tooLong("bookDescription", description);
    if (pageCount < 1) next.pages = "Le nombre de pages doit être au moins 1";
    if (!file) next.file = "Veuillez sélectionner un fichier PDF";
    else if (!isPdf(file)) next.file = "Seuls les fichiers PDF sont acceptés";
    if (cover && !cover.type.startsWith("image/")) next.cover = "Seuls les fichiers image sont acceptés pour la couverture";
    setErrors(next);
    upload.reset();
    if (Object.keys(next).length) return;
    try {
      await upload.mutateAsync({ input: { title, description, pages: pageCount, file, cover }, progress: task.start(file?.size ?? 0) });
      task.finish(true);
      toast.success("Livre téléchargé", { description: title.trim() });
      setTitle("");
      setDescription("");
      setPages("1");
      setFile(null);
      setCover(null);
      formRef.current?.reset();
    } catch {
      // Shown above the form (the mutation's error); the fields keep their values for a retry.
      task.finish(false);
    }
  };

  // The database's bounds are said while typing, the other rules when the form is sent.
  const titleError = tooLong("bookTitle", title) ?? errors.title;
  const descriptionError = tooLong("bookDescription", description);
  return (
    <form ref={formRef} className="grid gap-4" onSubmit={submit} noValidate>
      <FormField id="book-title" label="Titre" error={titleError}>
        <Input id="book-title" value={title} onChange={(e) => setTitle(e.target.value)} {...fieldAria("book-title", titleError)} />
      </FormField>
      <FormField id="book-description" label="Description" error={descriptionError}>
        <Textarea id="book-description" rows={3} value={description} onChange={(e) => setDescription(e.target.value)} {...fieldAria("book-description", descriptionError)} />
      </FormField>
      <FormField id="book-pages" label="Nombre de pages" error={errors.pages}>
        <Input id="book-pages" type="number" min={1} value={pages} onChange={(e) => setPages(e.target.value)} aria-invalid={!!errors.pages} />
      </FormField>
      <FormField id="book-file" label="Fichier PDF" error={errors.file}>
        <FileInput id="book-file" accept="application/pdf,.pdf" file={file} onFile={setFile} aria-invalid={!!errors.file} disabled={busy} />
      </FormField>
      <FormField id="book-cover" label="Couverture (optionnelle)" error={errors.cover} hint="Réduite à 300 px de large (JPEG).">
        <FileInput id="book-cover" accept="image/*" file={cover} onFile={setCover} aria-invalid={!!errors.cover} disabled={busy} />
      </FormField>
      {task.state && <UploadProgressPanel state={task.state} fileName={file?.name} onCancel={task.cancel} />}
      {/* Next to the button the admin just pressed (on a phone the top of the form is far). */}
      {failure && (
        <Alert variant="destructive">
          <AlertDescription>{failure}</AlertDescription>
        </Alert>
      )}
      {cancelled && (
        <Alert variant="warning">
          <AlertDescription>Téléversement annulé : le livre n'a pas été ajouté. Vous pouvez le relancer.</AlertDescription>
        </Alert>
      )}
      <div>
        <Button type="submit" disabled={busy}>
          {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <UploadIcon aria-hidden />} Téléverser le livre
        </Button>
      </div>
    </form>
  );
}
