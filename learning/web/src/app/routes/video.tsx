import * as React from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { toast } from "sonner";
import { ArrowLeftIcon, CheckCircle2Icon, ChevronLeftIcon, ChevronRightIcon, DownloadIcon, Loader2Icon, LockIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { Badge } from "@/components/ui/badge";
import { ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { useLesson, useRecordView, lockedLabel, type LessonView } from "@/features/courses";
import { LessonPlayer, playerOffersDownload, useContentDownload, fileTypeIcon, fileTypeLabel } from "@/features/lessons";
import { CommentsPanel } from "@/features/comments";
import { formatDateTimeFr } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";
import { cn } from "@/lib/utils";
import { frenchError } from "@/lib/server-errors";

type State =
  | { kind: "loading" }
  | { kind: "error"; title: string; description?: string; action: "login" | "back" | { courseId: string } }
  | Extract<LessonView, { kind: "ready" }>;

export default function VideoPage() {
  const { contentId } = useParams();
  const navigate = useNavigate();
  const { user, loading: authLoading } = useAuth();
  const userId = user?.id ?? null;
  const query = useLesson(contentId, userId);
  const recordView = useRecordView(userId);
  const recorded = React.useRef<Set<string>>(new Set());
  const { busy, download } = useContentDownload();
  const state = lessonState(authLoading, contentId, userId, query);
  useDocumentTitle(state.kind === "ready" ? state.content.title : state.kind === "error" ? state.title : "Leçon");

  // Each refusal is said once, when it comes.
  const refusal = state.kind === "error" ? state.title : null;
  React.useEffect(() => {
    if (refusal) toast.error("Impossible d'ouvrir la leçon", { description: refusal });
  }, [refusal, contentId, userId, query.errorUpdatedAt, query.dataUpdatedAt]);

  // Views are recorded once per lesson.
  const shownId = state.kind === "ready" ? state.content.id : null;
  const alreadyViewed = state.kind === "ready" && state.viewed.has(state.content.id);
  React.useEffect(() => {
    if (!shownId || alreadyViewed || recorded.current.has(shownId)) return;
    recorded.current.add(shownId);
    recordView(shownId);
  }, [shownId, alreadyViewed, recordView]);

  if (state.kind === "loading")
    return (
      <PageContainer>
        <div className="grid gap-6 lg:grid-cols-[280px_1fr]" role="status" aria-label="Chargement de la leçon">
          <Skeleton className="hidden h-96 lg:block" />
          <div className="space-y-4">
            <Skeleton className="aspect-video w-full" />
            <Skeleton className="h-7 w-1/2" />
          </div>
        </div>
      </PageContainer>
    );

  if (state.kind === "error") {
    const { action } = state;
    return (
      <PageContainer>
        <ErrorPanel
          title={state.title}
          description={state.description}
          action={
            action === "login" ? (
              <Button asChild>
                <Link to="/connexion">Connexion</Link>
              </Button>
            ) : action === "back" ? (
              <Button variant="outline" onClick={() => navigate(-1)}>
                <ArrowLeftIcon aria-hidden /> Retour
              </Button>
            ) : (
              <Button asChild variant="outline">
                <Link to={`/course/${action.courseId}`}>
                  <ArrowLeftIcon aria-hidden /> Retour au cours
                </Link>
              </Button>
            )
          }
        />
      </PageContainer>
    );
  }

  const { course, content, lessons, outline, viewed } = state;
  const index = lessons.findIndex((l) => l.id === content.id);
  const prev = index > 0 ? lessons[index - 1] : null;
  const next = index >= 0 && index < lessons.length - 1 ? lessons[index + 1] : null;

  return (
    <PageContainer>
      <Button asChild variant="ghost" size="sm" className="-ml-2 mb-4">
        <Link to={`/course/${course.id}`}>
          <ArrowLeftIcon aria-hidden /> {course.title}
        </Link>
      </Button>
      <div className="grid gap-6 lg:grid-cols-[280px_1fr]">
        <nav aria-label="Sommaire du cours" className="bg-card order-2 h-fit rounded-xl border lg:order-1">
          <p className="border-b px-4 py-3 text-sm font-semibold">Sommaire · {outline.length} leçon{outline.length > 1 ? "s" : ""}</p>
          <ol className="max-h-[60vh] overflow-y-auto p-2">
            {outline.map((l) => {
              const Icon = fileTypeIcon(l.file_type);
              const active = l.id === content.id;
              if (!l.unlocked)
                return (
                  <li key={l.id} className="text-muted-foreground flex items-center gap-2 rounded-md px-2 py-2 text-sm" data-testid="locked-lesson-entry">
                    <span className="w-5 shrink-0 text-center text-xs font-semibold opacity-70">{l.lesson_position}</span>
                    <LockIcon className="size-4 shrink-0" aria-hidden />
                    <span className="min-w-0 flex-1">
                      <span className="block truncate">{l.title}</span>
                      <span className="block text-xs">{lockedLabel(l)}</span>
                    </span>
                  </li>
                );
              return (
                <li key={l.id}>
                  <Link
                    to={`/video/${l.id}`}
                    aria-current={active ? "page" : undefined}
                    className={cn("flex items-center gap-2 rounded-md px-2 py-2 text-sm transition-colors", active ? "bg-primary text-primary-foreground" : "hover:bg-accent")}
                  >
                    <span className="w-5 shrink-0 text-center text-xs font-semibold opacity-70">{l.lesson_position}</span>
                    <Icon className="size-4 shrink-0" aria-hidden />
                    <span className="min-w-0 flex-1 truncate">{l.title}</span>
                    {viewed.has(l.id) ? <CheckCircle2Icon className={cn("size-4 shrink-0", !active && "text-emerald-600")} aria-label="terminée" /> : null}
                  </Link>
                </li>
              );
            })}
          </ol>
        </nav>

        <div className="order-1 min-w-0 space-y-5 lg:order-2">
          <LessonPlayer content={content} />
          <div className="flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
            <div className="min-w-0">
              <div className="flex flex-wrap items-center gap-2">
                <Badge variant="secondary">{fileTypeLabel(content.file_type)}</Badge>
                <span className="text-muted-foreground text-xs">Leçon {outline.find((l) => l.id === content.id)?.lesson_position ?? index + 1} sur {outline.length}</span>
              </div>
              <h1 className="mt-2 text-2xl font-bold tracking-tight">{content.title}</h1>
              <p className="text-muted-foreground text-sm">Publié le {formatDateTimeFr(content.created_at)}</p>
            </div>
            {/* One download button: a document's is the player's card. */}
            {content.file_path && !playerOffersDownload(content) && (
              <Button variant="outline" onClick={() => void download(content)} disabled={busy}>
                {busy ? <Loader2Icon className="animate-spin" aria-hidden /> : <DownloadIcon aria-hidden />} Télécharger
              </Button>
            )}
          </div>
          {content.description && <p className="leading-relaxed whitespace-pre-line">{content.description}</p>}
          <div className="flex justify-between gap-2 border-y py-3">
            <Button variant="outline" disabled={!prev} onClick={() => prev && navigate(`/video/${prev.id}`)}>
              <ChevronLeftIcon aria-hidden /> Précédent
            </Button>
            <Button disabled={!next} onClick={() => next && navigate(`/video/${next.id}`)}>
              Suivant <ChevronRightIcon aria-hidden />
            </Button>
          </div>
          <CommentsPanel contentId={content.id} />
        </div>
      </div>
    </PageContainer>
  );
}

/** What the viewer shows: the lesson, why it cannot, or a skeleton while it reads. */
function lessonState(authLoading: boolean, contentId: string | undefined, userId: string | null, query: { data?: LessonView; error: Error | null; isPending: boolean; isError: boolean; isFetching: boolean }): State {
  if (authLoading) return { kind: "loading" };
  if (!contentId) return { kind: "error", title: "Identifiant de contenu manquant", action: "back" };
  if (!userId) return { kind: "error", title: "Connexion requise", description: "Connectez-vous pour regarder cette leçon.", action: "login" };
  if (query.isError && !query.isFetching) return { kind: "error", title: "Impossible de charger la leçon", description: frenchError(query.error, "Réessayez dans un instant."), action: "back" };
  const view = query.data;
  if (!view || query.isError) return { kind: "loading" };
  if (view.kind === "refused") return { kind: "error", title: view.title, description: view.description, action: view.courseId ? { courseId: view.courseId } : "back" };
  return view;
}
