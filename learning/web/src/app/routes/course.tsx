import * as React from "react";
import { Link, useLocation, useParams } from "react-router-dom";
import { toast } from "sonner";
import { ArrowLeftIcon, ArrowRightIcon, CalendarClockIcon, CheckCircle2Icon, ExternalLinkIcon, ListVideoIcon, LockIcon, LogInIcon, PartyPopperIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Progress } from "@/components/ui/progress";
import { Skeleton } from "@/components/ui/skeleton";
import { Alert, AlertDescription, AlertTitle } from "@/components/ui/alert";
import { ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { useCourse, useCourseProgress, useRecordView, openOutline, lockedLabel, nextUnlock, type OutlineLesson, type CourseProgress, authLink, grantedLessonsLabel, lessonCountLabel, isUpToDate, noProgress, progressText, CourseCover, VisibilityBadge, LessonCarousel } from "@/features/courses";
import { LessonPlayer, fileTypeLabel } from "@/features/lessons";
import { CommentsPanel } from "@/features/comments";
import { ContactDialog } from "@/features/contact";
import { formatDateTimeFr } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";
import type { CourseContent } from "@/types/db";

export default function CoursePage() {
  const { courseId } = useParams();
  const { pathname } = useLocation();
  const { user } = useAuth();
  const data = useCourse(courseId);
  const { status, course, summary, hasAccess, accessLevel, content, outline, contentError, viewed } = data;
  // The learner's progress, as the database counts it (watched over unlocked).
  const progressQuery = useCourseProgress(user?.id ?? null, courseId ?? null, status === "loaded" && accessLevel !== "none");
  const recordView = useRecordView(user?.id ?? null);
  const [selectedId, setSelectedId] = React.useState<string | null>(null);
  const [contactOpen, setContactOpen] = React.useState(false);
  useDocumentTitle(course?.title ?? (status === "not-found" ? "Cours non trouvé" : "Cours"));

  React.useEffect(() => {
    if (status === "error") toast.error("Impossible de charger le cours", { description: "Impossible de charger les détails du cours." });
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

  // The carousel shows every lesson the learner may know of, locked ones included.
  const lessons = outline.length > 0 ? outline : openOutline(content);
  const progress = progressQuery.data?.get(course.id) ?? noProgress(course.id, lessons.length);
  const lessonCount = summary ? summary.lesson_count : lessons.length;
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
            {lessonCount > 0 && <span className="text-muted-foreground text-sm">{lessonCountLabel(lessonCount)}</span>}
          </div>
          <h1 className="text-3xl font-bold tracking-tight text-balance">{course.title}</h1>
          <p className="text-muted-foreground leading-relaxed whitespace-pre-line">{course.description || "Pas de description disponible."}</p>
        </div>
        <div className="hidden overflow-hidden rounded-xl border md:block">
          <CourseCover course={course} />
        </div>
      </div>

      {!user && (
        <Alert variant="info" className="mt-8" data-testid="course-sign-in">
          <LogInIcon aria-hidden />
          <AlertTitle>Connectez-vous pour suivre ce cours</AlertTitle>
          <AlertDescription>
            <p>
              {course.visibility === "public"
                ? "Créez un compte ou connectez-vous pour accéder aux leçons et suivre votre progression."
                : "Ce cours est payant. Connectez-vous ou créez un compte, puis contactez le professeur pour y accéder."}
            </p>
            <div className="mt-3 flex flex-wrap gap-2">
              {/* Back to this course once signed in. */}
              <Button asChild size="sm">
                <Link to={authLink("/connexion", pathname)}>Se connecter</Link>
              </Button>
              <Button asChild size="sm" variant="outline">
                <Link to={authLink("/inscription", pathname)}>Créer un compte</Link>
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
            <ProgressBlock progress={progress} />
            <LessonCarousel lessons={lessons} selectedId={selectedId} viewed={viewed} onSelect={select} />
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
                <Button asChild variant="outline" size="sm">
                  <Link to={`/cours-detail/${course.id}`}>
                    <ListVideoIcon aria-hidden /> Accéder au cours
                  </Link>
                </Button>
              </div>
            </div>
            <ProgressBlock progress={progress} />
            {lessons.length > 0 ? (
              <>
                <LessonCarousel lessons={lessons} selectedId={selectedId} viewed={viewed} onSelect={select} />
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

/**
 * The course's progress bar and its words ("2/3 leçons vues · 66 %"), from the database;
 * "Cours terminé" once every lesson is watched, "à jour" when the schedule holds the rest back.
 */
function ProgressBlock({ progress }: { progress: CourseProgress }) {
  if (progress.lesson_count === 0) return null; // an empty course has nothing to follow
  return (
    <div className="space-y-2">
      <div className="flex flex-wrap items-baseline justify-between gap-x-3 gap-y-1">
        <span className="text-sm font-medium" data-testid="progress-text">
          {progressText(progress)}
        </span>
        {progress.lesson_count > progress.unlocked_count && (
          <span className="text-muted-foreground text-xs">{grantedLessonsLabel(progress.unlocked_count)} sur {progress.lesson_count}</span>
        )}
      </div>
      <Progress value={progress.percent} aria-label={`Progression du cours : ${progress.percent} %`} />
      {progress.completed && (
        <p className="flex items-center gap-2 font-semibold text-emerald-700 dark:text-emerald-400" role="status" data-testid="course-done">
          <PartyPopperIcon className="size-5" aria-hidden /> Cours terminé
        </p>
      )}
      {isUpToDate(progress) && (
        <p className="text-muted-foreground flex items-center gap-2 text-sm" data-testid="course-up-to-date">
          <CheckCircle2Icon className="size-4 text-emerald-700 dark:text-emerald-400" aria-hidden /> Vous avez vu toutes les leçons débloquées.
        </p>
      )}
    </div>
  );
}

function Legend({ locked }: { locked: boolean }) {
  return (
    <ul className="text-muted-foreground flex flex-wrap gap-x-4 gap-y-1 text-xs">
      <li className="flex items-center gap-1.5">
        <span className="bg-muted size-3 rounded-sm border" aria-hidden /> Non vue
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
