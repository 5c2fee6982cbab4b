import * as React from "react";
import { Link } from "react-router-dom";
import { toast } from "sonner";
import { DownloadIcon, EllipsisVerticalIcon, ImageIcon, PlayIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";
import { DropdownMenu, DropdownMenuContent, DropdownMenuItem, DropdownMenuTrigger } from "@/components/ui/dropdown-menu";
import { EmptyState } from "@/components/layout/page-states";
import { fileTypeIcon, fileTypeLabel } from "@/features/lessons";
import { contentFileDownloadUrl } from "@/features/admin/api/courses";
import { useDeleteContent, useUpdateContent } from "@/features/admin/hooks/use-content-writes";
import { errorText } from "@/features/admin/lib/errors";
import { downloadName } from "@/features/admin/lib/content-file";
import { ConfirmDialog } from "@/features/admin/components/confirm-dialog";
import { formatFileSize } from "@/lib/format";
import { saveFileWithToast } from "@/lib/download";
import { tooLong } from "@/lib/text-limits";
import { LimitNote } from "@/components/limit-note";
import type { CourseContent } from "@/types/db";

/** The lessons of a course in order, with view/download buttons and the admin menu. */
export function ContentList({ items, viewed }: { items: CourseContent[]; viewed?: Set<string> }) {
  const [toDelete, setToDelete] = React.useState<CourseContent | null>(null);
  const deletion = useDeleteContent();

  const download = async (item: CourseContent) => {
    if (!item.file_path) {
      toast.error("Ce contenu ne peut pas être téléchargé", { description: "Aucun fichier associé à ce contenu" });
      return;
    }
    // Saved under the lesson's name, never opened in place of the admin page: the signed URL
    // asks for an attachment and the link names it.
    const path = item.file_path;
    await saveFileWithToast(() => contentFileDownloadUrl(path), downloadName(item.title, path), "Impossible de télécharger le contenu.");
  };

  const remove = async (item: CourseContent) => {
    try {
      await deletion.mutateAsync(item);
      toast.success("Contenu supprimé avec succès");
    } catch (error) {
      toast.error("Erreur lors de la suppression du contenu", { description: errorText(error, "Impossible de supprimer le contenu.") });
    }
  };

  if (items.length === 0) return <EmptyState title="Aucun contenu disponible dans ce cours." />;
  return (
    <>
      <ol className="grid grid-cols-1 gap-2">
        {items.map((item, index) => {
          const Icon = fileTypeIcon(item.file_type);
          return (
            <li key={item.id} className="bg-card flex flex-col gap-3 rounded-lg border p-3 sm:flex-row sm:items-center" data-testid="content-item" data-title={item.title}>
              <div className="flex min-w-0 flex-1 items-start gap-3">
                <span className="bg-primary/10 text-primary flex size-9 shrink-0 items-center justify-center rounded-md">
                  <Icon className="size-4" aria-hidden />
                </span>
                <div className="min-w-0">
                  <p className="font-medium">
                    <span className="text-muted-foreground mr-1">{index + 1}.</span>
                    {item.title}
                  </p>
                  <div className="mt-1 flex flex-wrap items-center gap-1.5 text-xs">
                    <Badge variant="secondary">{fileTypeLabel(item.file_type)}</Badge>
                    {viewed?.has(item.id) && <Badge variant="outline">Vu</Badge>}
                    {item.file_size != null && <span className="text-muted-foreground">{formatFileSize(item.file_size, { gigabytes: true })}</span>}
                  </div>
                  {item.description && <p className="text-muted-foreground mt-1 line-clamp-2 text-sm">{item.description}</p>}
                </div>
              </div>
              <div className="flex flex-wrap items-center gap-1">
                {item.file_type === "video" && (
                  <Button asChild size="sm" variant="outline">
                    <Link to={`/video/${item.id}`}>
                      <PlayIcon aria-hidden /> Regarder
                    </Link>
                  </Button>
                )}
                {item.file_type === "image" && (
                  <Button asChild size="sm" variant="outline">
                    <Link to={`/video/${item.id}`}>
                      <ImageIcon aria-hidden /> Voir l'image
                    </Link>
                  </Button>
                )}
                {item.file_path && (
                  <Button size="sm" variant="outline" onClick={() => void download(item)}>
                    <DownloadIcon aria-hidden /> Télécharger
                  </Button>
                )}
                <DropdownMenu>
                  <DropdownMenuTrigger asChild>
                    <Button size="icon" variant="ghost" aria-label={`Menu de ${item.title}`}>
                      <EllipsisVerticalIcon aria-hidden />
                    </Button>
                  </DropdownMenuTrigger>
                  <DropdownMenuContent align="end">
                    <DropdownMenuItem onSelect={() => toast.info("Édition de contenu pas encore implémentée")}>Modifier</DropdownMenuItem>
                    <DropdownMenuItem className="text-destructive" onSelect={() => setToDelete(item)}>
                      Supprimer
                    </DropdownMenuItem>
                  </DropdownMenuContent>
                </DropdownMenu>
              </div>
            </li>
          );
        })}
      </ol>
      {toDelete && (
        <ConfirmDialog
          open
          onOpenChange={(o) => !o && setToDelete(null)}
          title="Supprimer ce contenu ?"
          description={`« ${toDelete.title} » et son fichier seront définitivement supprimés.`}
          confirmLabel="Supprimer"
          onConfirm={() => {
            const item = toDelete;
            setToDelete(null);
            void remove(item);
          }}
        />
      )}
    </>
  );
}

/** Edits the titles and descriptions of the lessons (title must be non-empty to save). */
export function ContentEditSection({ items }: { items: CourseContent[] }) {
  if (items.length === 0) return <p className="text-muted-foreground text-sm">Aucun contenu disponible dans ce cours.</p>;
  return (
    <div className="grid gap-3">
      {items.map((item) => (
        <ContentEditRow key={`${item.id}:${item.title}:${item.description ?? ""}`} item={item} />
      ))}
    </div>
  );
}

function ContentEditRow({ item }: { item: CourseContent }) {
  const [title, setTitle] = React.useState(item.title);
  const [description, setDescription] = React.useState(item.description ?? "");
  const update = useUpdateContent();
  const busy = update.isPending;
  const dirty = title !== item.title || description !== (item.description ?? "");
  // The database's bounds, said while typing.
  const titleTooLong = tooLong("contentTitle", title);
  const descriptionTooLong = tooLong("contentDescription", description);
  const save = async () => {
    try {
      await update.mutateAsync({ item, title, description });
      toast.success("Succès", { description: "Le contenu a été mis à jour." });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, "Impossible de mettre à jour le contenu.") });
    }
  };
  return (
    <div className="grid gap-2 rounded-lg border p-3" data-testid="content-edit">
      <Input aria-label={`Titre de ${item.title}`} value={title} onChange={(e) => setTitle(e.target.value)} aria-invalid={!!titleTooLong} aria-describedby={titleTooLong ? `edit-title-${item.id}-error` : undefined} />
      <LimitNote id={`edit-title-${item.id}-error`} message={titleTooLong} />
      <Textarea
        aria-label={`Description de ${item.title}`}
        rows={2}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        aria-invalid={!!descriptionTooLong}
        aria-describedby={descriptionTooLong ? `edit-description-${item.id}-error` : undefined}
      />
      <LimitNote id={`edit-description-${item.id}-error`} message={descriptionTooLong} />
      <div>
        <Button size="sm" disabled={!dirty || !title.trim() || !!titleTooLong || !!descriptionTooLong || busy} onClick={() => void save()}>
          Enregistrer
        </Button>
      </div>
    </div>
  );
}
