import * as React from "react";
import { useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { ChevronDownIcon, ChevronRightIcon, Loader2Icon, LockIcon, RefreshCwIcon, UnlockIcon } from "lucide-react";
import { Badge } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Dialog, DialogContent, DialogDescription, DialogHeader, DialogTitle } from "@/components/ui/dialog";
import { Table, TableBody, TableCell, TableHead, TableHeader, TableRow } from "@/components/ui/table";
import { Tabs, TabsContent, TabsList, TabsTrigger } from "@/components/ui/tabs";
import { fileTypeLabel } from "@/features/lessons";
import { CourseProgressLine, progressKeys, useCourseProgress } from "@/features/courses";
import type { AccessWrite } from "@/features/admin/api/access";
import { accessWriteKey, useAccessData, useAccessWrite, useUnfoldedLessons } from "@/features/admin/hooks/use-access";
import { lessonsQuery } from "@/features/admin/hooks/use-course-content";
import { bulkConfirmText, canApplyBulk, INITIAL_SELECTION, selectionReducer, type BulkKind } from "@/features/admin/lib/selection";
import { errorText } from "@/features/admin/lib/errors";
import { ConfirmDialog } from "@/features/admin/components/confirm-dialog";
import { useWide } from "@/features/admin/hooks/use-wide";
import type { Book, Course, CourseContent } from "@/types/db";

const courseKey = (id: string) => `course:${id}`;
const contentKey = (id: string) => `content:${id}`;

/** Per-user access management: courses, single lessons and books; bulk mode on lessons. */
export function AccessDialog({ userId, onClose }: { userId: string; onClose: () => void }) {
  const queryClient = useQueryClient();
  const { profile, courses, books, summary, loading, fetching, refetch } = useAccessData(userId);
  const write = useAccessWrite(userId);
  // The learner's progress per course, by the same rule as their own screens (the database's).
  const progress = useCourseProgress(userId);
  // The courses unfolded to show their lessons, in the order they were opened.
  const [unfolded, setUnfolded] = React.useState<string[]>([]);
  const expanded = useUnfoldedLessons(unfolded);
  const [selection, dispatch] = React.useReducer(selectionReducer, INITIAL_SELECTION);
  const [confirm, setConfirm] = React.useState<BulkKind | null>(null);
  const busy = write.isPending && write.variables ? accessWriteKey(write.variables) : null;
  // Narrow screens drop the Type columns: the badge follows the title instead.
  const wide = useWide();

  const toggleExpand = async (courseId: string) => {
    const fold = () => setUnfolded((ids) => ids.filter((id) => id !== courseId));
    if (unfolded.includes(courseId)) {
      fold();
      return;
    }
    setUnfolded((ids) => [...ids, courseId]);
    try {
      await queryClient.fetchQuery(lessonsQuery(courseId));
    } catch (error) {
      fold();
      toast.error("Erreur", { description: errorText(error, "Impossible de charger les données.") });
    }
  };

  if (!profile) return null;
  const name = profile.full_name || profile.email || "cet utilisateur";
  const courseIds = new Set(summary?.courses.map((c) => c.course_id) ?? []);
  const bookIds = new Set(summary?.books.map((b) => b.book_id) ?? []);
  const contentIds = summary?.contentIds ?? new Set<string>();
  const loadedContent = Object.values(expanded).flatMap((v) => (v === "loading" ? [] : v));

  // A grant or a revoke changes what is unlocked, hence the progress.
  const refreshProgress = () => void queryClient.invalidateQueries({ queryKey: progressKeys.all });

  const act = async (change: AccessWrite, description: string, fallback: string) => {
    try {
      await write.mutateAsync(change);
      toast.success(change.grant ? "Accès accordé" : "Accès révoqué", { description });
    } catch (error) {
      toast.error("Erreur lors de la modification de l'accès", { description: errorText(error, fallback) });
    } finally {
      refreshProgress();
    }
  };

  const toggleCourse = (c: Course) => {
    const grant = !courseIds.has(c.id);
    return act({ target: "course", id: c.id, grant }, `L'accès au cours « ${c.title} » a été ${grant ? "accordé" : "révoqué"}.`, "Impossible de mettre à jour l'accès au cours.");
  };
  const toggleBook = (b: Book) => {
    const grant = !bookIds.has(b.id);
    return act({ target: "book", id: b.id, grant }, `L'accès au livre « ${b.title} » a été ${grant ? "accordé" : "révoqué"}.`, "Impossible de mettre à jour l'accès au livre.");
  };
  const toggleContent = (item: CourseContent) => {
    const grant = !contentIds.has(item.id);
    return act({ target: "content", id: item.id, courseId: item.course_id, grant }, `L'accès à « ${item.title} » a été ${grant ? "accordé" : "révoqué"}.`, "Une erreur s'est produite");
  };

  const askBulk = (kind: BulkKind) => {
    if (!canApplyBulk(selection)) {
      toast.error("Aucun contenu sélectionné", { description: "Veuillez sélectionner au moins un contenu." });
      return;
    }
    setConfirm(kind);
  };

  const runBulk = async (kind: BulkKind) => {
    const keys = [...selection.selected];
    const selectedCourses = keys.filter((k) => k.startsWith("course:")).map((k) => k.slice(7));
    const selectedContent = loadedContent.filter((c) => selection.selected.has(contentKey(c.id)));
    try {
      await write.mutateAsync({ target: "bulk", grant: kind === "grant", courseIds: selectedCourses, content: selectedContent });
      const n = keys.length;
      toast.success(kind === "grant" ? "Accès accordé" : "Accès révoqué", {
        description: `${kind === "grant" ? "Accès accordé à" : "Accès révoqué pour"} ${n} élément${n > 1 ? "s" : ""}.`,
      });
      dispatch({ type: "done" });
    } catch (error) {
      toast.error("Erreur", { description: errorText(error, `Impossible de ${kind === "grant" ? "accorder" : "révoquer"} l'accès aux contenus sélectionnés.`) });
    } finally {
      refreshProgress();
    }
  };

  const selectAll = () => dispatch({ type: "selectAll", ids: [...courses.map((c) => courseKey(c.id)), ...loadedContent.map((c) => contentKey(c.id))] });
  const text = confirm ? bulkConfirmText(confirm, selection.selected.size, name) : null;

  return (
    <Dialog open onOpenChange={(o) => !o && onClose()}>
      <DialogContent className="max-w-4xl p-4 sm:p-6 [&>*]:min-w-0">
        <DialogHeader>
          <DialogTitle>Gestion d'accès pour {name}</DialogTitle>
          <DialogDescription>Gérer l'accès aux cours et contenus spécifiques</DialogDescription>
        </DialogHeader>
        <div className="flex flex-wrap items-center gap-2">
          <Badge variant="secondary" data-testid="access-course-count">
            {courseIds.size} cours accessible{courseIds.size > 1 ? "s" : ""}
          </Badge>
          <Badge variant="secondary" data-testid="access-book-count">
            {bookIds.size} livre{bookIds.size > 1 ? "s" : ""} accessible{bookIds.size > 1 ? "s" : ""}
          </Badge>
          {summary?.hasFullAccess && <Badge variant="success">Accès complet</Badge>}
          <Button variant="outline" size="sm" className="ml-auto" onClick={() => void Promise.all([refetch(), progress.refetch()])} disabled={fetching}>
            <RefreshCwIcon className={fetching ? "animate-spin" : undefined} aria-hidden /> Actualiser
          </Button>
        </div>
        {loading ? (
          <p className="text-muted-foreground flex items-center gap-2 py-6 text-sm" role="status">
            <Loader2Icon className="size-4 animate-spin" aria-hidden /> Chargement des accès...
          </p>
        ) : (
          <Tabs defaultValue="courses">
            <TabsList>
              <TabsTrigger value="courses">Cours</TabsTrigger>
              <TabsTrigger value="books">Livres</TabsTrigger>
            </TabsList>
            <TabsContent value="courses" className="space-y-3">
              <div className="flex flex-wrap gap-2">
                {!selection.active ? (
                  <Button variant="outline" size="sm" onClick={() => dispatch({ type: "enter" })}>
                    Sélectionner
                  </Button>
                ) : (
                  <>
                    <Button variant="outline" size="sm" onClick={selectAll}>
                      Tout sélectionner
                    </Button>
                    <Button variant="outline" size="sm" onClick={() => dispatch({ type: "selectNone" })}>
                      Tout désélectionner
                    </Button>
                    <Button size="sm" disabled={!canApplyBulk(selection) || busy === "bulk"} onClick={() => askBulk("grant")}>
                      Accorder l'accès ({selection.selected.size})
                    </Button>
                    <Button size="sm" variant="destructive" disabled={!canApplyBulk(selection) || busy === "bulk"} onClick={() => askBulk("revoke")}>
                      Révoquer l'accès ({selection.selected.size})
                    </Button>
                    <Button variant="ghost" size="sm" onClick={() => dispatch({ type: "cancel" })}>
                      Annuler
                    </Button>
                  </>
                )}
              </div>
              {courses.length === 0 ? (
                <p className="text-muted-foreground py-6 text-center text-sm">Aucun cours disponible.</p>
              ) : (
                <div className="rounded-lg border">
                  <Table>
                    <TableHeader>
                      <TableRow>
                        <TableHead className="w-10"><span className="sr-only">Déplier</span></TableHead>
                        <TableHead>Cours / Contenu</TableHead>
                        {wide && <TableHead>Type</TableHead>}
                        <TableHead className="text-right">Actions</TableHead>
                      </TableRow>
                    </TableHeader>
                    <TableBody>
                      {courses.map((c) => {
                        const items = expanded[c.id];
                        const has = courseIds.has(c.id);
                        const learned = progress.data?.get(c.id);
                        const visibilityBadge = <Badge variant="outline">{c.visibility === "public" ? "Public" : "Privé"}</Badge>;
                        return (
                          <React.Fragment key={c.id}>
                            <TableRow data-testid="access-course" data-title={c.title}>
                              <TableCell>
                                <Button variant="ghost" size="icon" className="size-8" aria-expanded={!!items} aria-label={`${items ? "Masquer" : "Afficher"} le contenu de ${c.title}`} onClick={() => void toggleExpand(c.id)}>
                                  {items ? <ChevronDownIcon aria-hidden /> : <ChevronRightIcon aria-hidden />}
                                </Button>
                              </TableCell>
                              <TableCell>
                                <div className="flex items-start gap-2">
                                  {selection.active && <Checkbox className="mt-0.5" aria-label={`Sélectionner ${c.title}`} checked={selection.selected.has(courseKey(c.id))} onCheckedChange={() => dispatch({ type: "toggle", id: courseKey(c.id) })} />}
                                  <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-1">
                                    <span className="font-medium break-words">{c.title}</span>
                                    {has && <Badge variant="success">Accessible</Badge>}
                                    {!wide && visibilityBadge}
                                  </div>
                                </div>
                                {learned && <CourseProgressLine progress={learned} className="mt-1.5 max-w-64" />}
                              </TableCell>
                              {wide && <TableCell>{visibilityBadge}</TableCell>}
                              <TableCell className="text-right">
                                <Button size="sm" variant={has ? "outline" : "default"} disabled={busy === courseKey(c.id)} onClick={() => void toggleCourse(c)}>
                                  {has ? "Révoquer" : "Accorder"}
                                </Button>
                              </TableCell>
                            </TableRow>
                            {items === "loading" && (
                              <TableRow>
                                <TableCell colSpan={4} className="text-muted-foreground pl-4 text-sm sm:pl-12">Chargement du contenu...</TableCell>
                              </TableRow>
                            )}
                            {Array.isArray(items) && items.length === 0 && (
                              <TableRow>
                                <TableCell colSpan={4} className="text-muted-foreground pl-4 text-sm sm:pl-12">Aucun contenu disponible dans ce cours.</TableCell>
                              </TableRow>
                            )}
                            {Array.isArray(items) &&
                              items.map((item) => {
                                const granted = contentIds.has(item.id);
                                const typeBadge = <Badge variant="secondary">{fileTypeLabel(item.file_type)}</Badge>;
                                return (
                                  <TableRow key={item.id} className="bg-muted/30" data-testid="access-content" data-title={item.title}>
                                    <TableCell />
                                    <TableCell className="pl-2 sm:pl-6">
                                      <div className="flex items-start gap-2">
                                        {selection.active && <Checkbox className="mt-0.5" aria-label={`Sélectionner ${item.title}`} checked={selection.selected.has(contentKey(item.id))} onCheckedChange={() => dispatch({ type: "toggle", id: contentKey(item.id) })} />}
                                        <div className="min-w-0">
                                          <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                                            <span className="break-words">{item.title}</span>
                                            {granted && <Badge variant="success">Accessible</Badge>}
                                            {!wide && typeBadge}
                                          </div>
                                          {item.description && <p className="text-muted-foreground text-xs">{item.description}</p>}
                                        </div>
                                      </div>
                                    </TableCell>
                                    {wide && <TableCell>{typeBadge}</TableCell>}
                                    <TableCell className="text-right">
                                      <Button
                                        size="icon"
                                        variant="ghost"
                                        className="size-8"
                                        disabled={busy === contentKey(item.id)}
                                        aria-label={`${granted ? "Révoquer l'accès à" : "Accorder l'accès à"} ${item.title}`}
                                        onClick={() => void toggleContent(item)}
                                      >
                                        {granted ? <LockIcon aria-hidden /> : <UnlockIcon aria-hidden />}
                                      </Button>
                                    </TableCell>
                                  </TableRow>
                                );
                              })}
                          </React.Fragment>
                        );
                      })}
                    </TableBody>
                  </Table>
                </div>
              )}
            </TabsContent>
            <TabsContent value="books">
              {books.length === 0 ? (
                <p className="text-muted-foreground py-6 text-center text-sm">Aucun livre disponible.</p>
              ) : (
                <div className="rounded-lg border">
                  <Table>
                    <TableHeader>
                      <TableRow>
                        <TableHead>Livre</TableHead>
                        {wide && <TableHead>Type</TableHead>}
                        <TableHead className="text-right">Actions</TableHead>
                      </TableRow>
                    </TableHeader>
                    <TableBody>
                      {books.map((b) => {
                        const has = bookIds.has(b.id);
                        return (
                          <TableRow key={b.id} data-testid="access-book" data-title={b.title}>
                            <TableCell>
                              <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
                                <span className="font-medium break-words">{b.title}</span>
                                {has && <Badge variant="success">Accessible</Badge>}
                                {!wide && <Badge variant="outline">PDF</Badge>}
                              </div>
                            </TableCell>
                            {wide && (
                              <TableCell>
                                <Badge variant="outline">PDF</Badge>
                              </TableCell>
                            )}
                            <TableCell className="text-right">
                              <Button size="sm" variant={has ? "outline" : "default"} disabled={busy === `book:${b.id}`} onClick={() => void toggleBook(b)}>
                                {has ? "Révoquer" : "Accorder"}
                              </Button>
                            </TableCell>
                          </TableRow>
                        );
                      })}
                    </TableBody>
                  </Table>
                </div>
              )}
            </TabsContent>
          </Tabs>
        )}
        {text && (
          <ConfirmDialog
            open
            onOpenChange={(o) => !o && setConfirm(null)}
            title={text.title}
            description={text.body}
            confirmLabel={text.confirm}
            destructive={confirm === "revoke"}
            onConfirm={() => {
              const kind = confirm!;
              setConfirm(null);
              void runBulk(kind);
            }}
          />
        )}
      </DialogContent>
    </Dialog>
  );
}
