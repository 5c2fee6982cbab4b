import * as React from "react";
import { Link, useParams } from "react-router-dom";
import { toast } from "sonner";
import { ArrowLeftIcon, ArrowRightIcon, CalendarClockIcon, ExternalLinkIcon, ListVideoIcon, LockIcon, LogInIcon, PartyPopperIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { useCourse, useRecordView, openOutline, lockedLabel, nextUnlock, type OutlineLesson, courseProgress, grantedLessonsLabel, CourseCover, VisibilityBadge, LessonCarousel } from "@/features/courses";
import { LessonPlayer, fileTypeLabel } from "@/features/lessons";
import { CommentsPanel } from "@/features/comments";
import { ContactDialog } from "@/features/contact";
import { formatDateTimeFr } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";
import type { CourseContent } from "@/types/db";

export default function CoursePage() {
  const { courseId } = useParams();
  const { user } = useAuth();
  const data = useCourse(courseId);
  const { status, course, hasAccess, accessLevel, content, outline, contentError, completed, viewed } = data;
  const recordView = useRecordView(user?.id ?? null);
  const [selectedId, setSelectedId] = React.useState<string | null>(null);
  const [contactOpen, setContactOpen] = React.useState(false);
  useDocumentTitle(course?.title ?? (status === "not-found" ? "Cours non trouvé" : "Cours"));

  React.useEffect(() => {
    if (status === "error") toast.error("Failed to load course", { description: "Impossible de charger les détails du cours." });
  }, [status]);
  React.useEffect(() => {
    if (contentError) toast.warning("Impossible de charger le contenu du cours.");
  }, [contentError]);

  const select = (id: string) => {
    // Clicking the selected lesson again closes it.
    if (id === selectedId) return setSelectedId(null);
    setSelectedId(id);
    const open = content.some((c) => c.id === id);
    if (user && open && !viewed.has(id)) recordView(id);
  };

  if (status === "loading") return <CourseSkeleton />;
  if (status === "not-found" || status === "error" || !course) {
    return (
      <PageContainer>
        <ErrorPanel
          title={status === "error" ? "Impossible de charger le cours" : "Cours non trouvé"}
          description={status === "error" ? "Impossible de charger les détails du cours." : "Ce cours n'existe pas ou n'est plus disponible."}
          action={
            <div className="flex gap-2">
              {status === "error" && (
                <Button variant="outline" onClick={data.reload}>
                  Réessayer
                </Button>
              )}
              <Button asChild>
                <Link to="/cours">
                  <ArrowLeftIcon aria-hidden /> Retour aux cours
                </Link>
              </Button>
            </div>
          }
        />
      </PageContainer>
    );
  }

  // Progress and the carousel count every lesson of the course, locked ones included.
  const lessons = outline.length > 0 ? outline : openOutline(content);
  const progress = courseProgress(lessons.filter((c) => completed.has(c.id)).length, lessons.length);
  const selected = content.find((c) => c.id === selectedId) ?? null;
  const selectedLocked = selected ? null : (lessons.find((l) => l.id === selectedId && !l.unlocked) ?? null);
  const upcoming = nextUnlock(lessons);

  return (
    <PageContainer className="max-w-6xl">
      <Button asChild variant="ghost" size="sm" className="-ml-2 mb-4">
        <Link to="/cours">
          <ArrowLeftIcon aria-hidden /> Retour aux cours
        </Link>
      </Button>

      <div className="grid gap-6 md:grid-cols-[1fr_280px] md:items-start">
        <div className="space-y-3">
          <div className="flex flex-wrap items-center gap-2">
            <VisibilityBadge visibility={course.visibility} wording="privacy" />
            {lessons.length > 0 && <span className="text-muted-foreground text-sm">{lessons.length} leçon{lessons.length > 1 ? "s" : ""}</span>}
          </div>
          <h1 className="text-3xl font-bold tracking-tight text-balance">{course.title}</h1>
          <p className="text-muted-foreground leading-relaxed whitespace-pre-line">{course.description || "Pas de description disponible."}</p>
        </div>
        <div className="hidden overflow-hidden rounded-xl border md:block">
          <CourseCover course={course} />
        </div>
      </div>

      {!user && (
        <Alert variant="info" className="mt-8">
          <LogInIcon aria-hidden />
          <AlertTitle>Connectez-vous pour suivre ce cours</AlertTitle>
          <AlertDescription>
            <p>Créez un compte ou connectez-vous pour accéder aux leçons et suivre votre progression.</p>
            <div className="mt-3 flex flex-wrap gap-2">
              <Button asChild size="sm">
                <Link to="/connexion">Connexion</Link>
              </Button>
              <Button asChild size="sm" variant="outline">
                <Link to="/inscription">Inscription</Link>
              </Button>
            </div>
          </AlertDescription>
        </Alert>
      )}

      {user && !hasAccess && (
        <div className="bg-card mt-8 flex flex-col items-start gap-4 rounded-xl border p-6 sm:flex-row sm:items-center">
          <span className="flex size-12 shrink-0 items-center justify-center rounded-full bg-amber-100 text-amber-800">
            <LockIcon className="size-6" aria-hidden />
          </span>
          <div className="flex-1">
            <p className="font-semibold">Ce cours est payant</p>
            {accessLevel === "lessons" && (
              <p className="text-sm font-medium" data-testid="granted-lessons">
                Vous avez {grantedLessonsLabel(content.length)} dans ce cours.
              </p>
            )}
            <p className="text-muted-foreground text-sm">Contactez le professeur pour obtenir l'accès à toutes les leçons.</p>
          </div>
          <Button onClick={() => setContactOpen(true)}>
            Accéder au cours <ArrowRightIcon aria-hidden />
          </Button>
        </div>
      )}

      {user && accessLevel === "lessons" && (
        <div className="mt-8 space-y-6">
          <section className="bg-card space-y-4 rounded-xl border p-4 sm:p-6" aria-label="Leçons débloquées">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h2 className="font-semibold">Leçons débloquées</h2>
              <Button asChild variant="outline" size="sm">
                <Link to={`/cours-detail/${course.id}`}>
                  <ListVideoIcon aria-hidden /> Voir mes leçons
                </Link>
              </Button>
            </div>
            <LessonCarousel lessons={lessons} selectedId={selectedId} completed={completed} viewed={viewed} onSelect={select} />
            <Legend locked={false} />
          </section>
          <SelectedLesson lessons={lessons} selected={selected} locked={selectedLocked} />
        </div>
      )}

      {user && hasAccess && (
        <div className="mt-8 space-y-6">
          <section className="bg-card space-y-4 rounded-xl border p-4 sm:p-6" aria-label="Progression">
            <div className="flex flex-wrap items-center justify-between gap-2">
              <h2 className="font-semibold">Votre progression</h2>
              <div className="flex items-center gap-3">
                <span className="text-muted-foreground text-sm" data-testid="progress-text">
                  {progress.completed}/{progress.total} leçons · {progress.percent} %
                </span>
                <Button asChild variant="outline" size="sm">
                  <Link to={`/cours-detail/${course.id}`}>
                    <ListVideoIcon aria-hidden /> Accéder au cours
                  </Link>
                </Button>
              </div>
            </div>
            <Progress value={progress.percent} aria-label="Progression du cours" />
            {progress.done && (
              <p className="flex items-center gap-2 font-semibold text-emerald-700 dark:text-emerald-400" role="status">
                <PartyPopperIcon className="size-5" aria-hidden /> Cours terminé
              </p>
            )}
            {lessons.length > 0 ? (
              <>
                <LessonCarousel lessons={lessons} selectedId={selectedId} completed={completed} viewed={viewed} onSelect={select} />
                {upcoming && (
                  <p className="text-muted-foreground flex items-start gap-2 text-sm" data-testid="next-unlock">
                    <CalendarClockIcon className="mt-0.5 size-4 shrink-0" aria-hidden />
                    <span>
                      Prochaine leçon : « {upcoming.title} », {lockedLabel(upcoming).replace(/^Disponible/, "disponible")}.
                    </span>
                  </p>
                )}
                <Legend locked={lessons.some((l) => !l.unlocked)} />
              </>
            ) : (
              <p className="text-muted-foreground text-sm">{contentError ? "Impossible de charger le contenu du cours." : "Aucun contenu disponible dans ce cours."}</p>
            )}
          </section>

          <SelectedLesson lessons={lessons} selected={selected} locked={selectedLocked} />
        </div>
      )}

      <ContactDialog open={contactOpen} onOpenChange={setContactOpen} courseTitle={course.title} email={user?.email} />
    </PageContainer>
  );
}

/** The inline viewer of the selected lesson, with its comments; a locked lesson says when it opens. */
function SelectedLesson({ lessons, selected, locked }: { lessons: OutlineLesson[]; selected: CourseContent | null; locked: OutlineLesson | null }) {
  if (locked) return <LockedLesson lesson={locked} />;
  if (!selected) return lessons.length > 0 ? <p className="text-muted-foreground text-center text-sm">Sélectionnez une leçon pour la regarder.</p> : null;
  const position = lessons.find((l) => l.id === selected.id)?.lesson_position ?? 1;
  return (
    <div className="grid gap-6 lg:grid-cols-[1fr_380px]">
      <section className="space-y-4" aria-label="Leçon">
        <LessonPlayer content={selected} />
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div>
            <p className="text-muted-foreground text-xs font-medium uppercase">
              Leçon {position} · {fileTypeLabel(selected.file_type)}
            </p>
            <h2 className="text-xl font-semibold">{selected.title}</h2>
            <p className="text-muted-foreground text-sm">Publié le {formatDateTimeFr(selected.created_at)}</p>
          </div>
          <Button asChild variant="outline" size="sm">
            <Link to={`/video/${selected.id}`}>
              <ExternalLinkIcon aria-hidden /> Ouvrir la leçon
            </Link>
          </Button>
        </div>
        {selected.description && <p className="leading-relaxed whitespace-pre-line">{selected.description}</p>}
      </section>
      <CommentsPanel contentId={selected.id} />
    </div>
  );
}

function LockedLesson({ lesson }: { lesson: OutlineLesson }) {
  return (
    <section className="bg-card flex flex-col items-center gap-3 rounded-xl border border-dashed px-6 py-10 text-center" aria-label="Leçon verrouillée" data-testid="locked-lesson">
      <span className="bg-muted text-muted-foreground flex size-12 items-center justify-center rounded-full">
        <LockIcon className="size-6" aria-hidden />
      </span>
      <div>
        <p className="text-muted-foreground text-xs font-medium uppercase">Leçon {lesson.lesson_position} · Verrouillée</p>
        <h2 className="text-xl font-semibold text-balance">{lesson.title}</h2>
      </div>
      <p className="font-medium">{lockedLabel(lesson)}</p>
      <p className="text-muted-foreground max-w-md text-sm">Les leçons de ce cours s'ouvrent au fil du programme de déblocage.</p>
    </section>
  );
}

function Legend({ locked }: { locked: boolean }) {
  return (
    <ul className="text-muted-foreground flex flex-wrap gap-x-4 gap-y-1 text-xs">
      <li className="flex items-center gap-1.5">
        <span className="bg-muted size-3 rounded-sm border" aria-hidden /> Non vue
      </li>
      <li className="flex items-center gap-1.5">
        <span className="size-3 rounded-sm bg-blue-200" aria-hidden /> Vue
      </li>
      <li className="flex items-center gap-1.5">
        <span className="size-3 rounded-sm bg-emerald-700" aria-hidden /> Terminée
      </li>
      {locked && (
        <li className="flex items-center gap-1.5">
          <LockIcon className="size-3" aria-hidden /> Verrouillée
        </li>
      )}
    </ul>
  );
}

function CourseSkeleton() {
  return (
    <PageContainer className="max-w-6xl" >
      <div role="status" aria-label="Chargement du cours" className="space-y-6">
        <Skeleton className="h-8 w-40" />
        <Skeleton className="h-10 w-2/3" />
        <Skeleton className="h-4 w-full" />
        <Skeleton className="h-4 w-5/6" />
        <Skeleton className="h-40 w-full" />
      </div>
    </PageContainer>
  );
}
