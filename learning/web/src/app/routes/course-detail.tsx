import * as React from "react";
import { Link, useLocation, useParams } from "react-router-dom";
import { ArrowLeftIcon, DownloadIcon, EyeIcon, ImageIcon, LockIcon, PlayIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Badge } from "@/components/ui/badge";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { useAuth } from "@/features/auth";
import { useCourse, useCourseProgress, CourseProgressLine, VisibilityBadge, authLink, grantedLessonsLabel, noProgress, openOutline, lockedLabel, type OutlineLesson } from "@/features/courses";
import { ContactDialog } from "@/features/contact";
import { useContentDownload, fileTypeIcon, fileTypeLabel } from "@/features/lessons";
import { formatFileSize } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";

export default function CourseDetail() {
  const { id } = useParams();
  const { pathname } = useLocation();
  const { user } = useAuth();
  const { status, course, accessLevel, content, outline, contentError, viewed, reload } = useCourse(id);
  const progress = useCourseProgress(user?.id ?? null, id ?? null, status === "loaded" && accessLevel !== "none");
  const { busy, download } = useContentDownload();
  const [contactOpen, setContactOpen] = React.useState(false);
  useDocumentTitle(course?.title ?? "Contenu du cours");

  if (status === "loading")
    return (
      <PageContainer className="max-w-4xl">
        <div className="space-y-4" role="status" aria-label="Chargement du cours">
          <Skeleton className="h-9 w-2/3" />
          <Skeleton className="h-4 w-full" />
          {Array.from({ length: 4 }, (_, i) => (
            <Skeleton key={i} className="h-20 w-full" />
          ))}
        </div>
      </PageContainer>
    );

  if (status !== "loaded" || !course)
    return (
      <PageContainer>
        <ErrorPanel
          title={status === "error" ? "Impossible de charger le contenu du cours" : "Cours non trouvé"}
          description={status === "error" ? undefined : "Ce cours n'existe pas ou n'est plus disponible."}
          action={
            <div className="flex gap-2">
              {status === "error" && <Button variant="outline" onClick={reload}>Réessayer</Button>}
              <Button asChild>
                <Link to="/cours">Retour aux cours</Link>
              </Button>
            </div>
          }
        />
      </PageContainer>
    );

  return (
    <PageContainer className="max-w-4xl">
      <Button asChild variant="ghost" size="sm" className="-ml-2 mb-4">
        <Link to={`/course/${course.id}`}>
          <ArrowLeftIcon aria-hidden /> Retour
        </Link>
      </Button>
      <div className="mb-8 space-y-3">
        <VisibilityBadge visibility={course.visibility} wording="privacy" />
        <h1 className="text-3xl font-bold tracking-tight">{course.title}</h1>
        <p className="text-muted-foreground whitespace-pre-line">{course.description || "Pas de description disponible."}</p>
        {user && accessLevel !== "none" && <CourseProgressLine progress={progress.data?.get(course.id) ?? noProgress(course.id)} className="max-w-md pt-2" />}
      </div>

      {user && accessLevel === "lessons" && (
        <div className="bg-card mb-6 flex flex-col items-start gap-4 rounded-xl border p-4 sm:flex-row sm:items-center" data-testid="granted-lessons">
          <span className="flex size-10 shrink-0 items-center justify-center rounded-full bg-amber-100 text-amber-800">
            <LockIcon className="size-5" aria-hidden />
          </span>
          <div className="flex-1">
            <p className="font-semibold">Vous avez {grantedLessonsLabel(content.length)} dans ce cours.</p>
            <p className="text-muted-foreground text-sm">Les autres leçons sont réservées. Contactez le professeur pour obtenir l'accès à toutes les leçons.</p>
          </div>
          <Button onClick={() => setContactOpen(true)}>Accéder au cours</Button>
        </div>
      )}

      {!user || accessLevel === "none" ? (
        <ErrorPanel
          title={user ? "Accès réservé" : "Connexion requise"}
          description={user ? "Vous n'avez pas encore accès à ce cours." : "Connectez-vous pour voir le contenu de ce cours."}
          action={
            user ? (
              <Button onClick={() => setContactOpen(true)}>Accéder au cours</Button>
            ) : (
              // Back to this page once signed in.
              <div className="flex flex-wrap justify-center gap-2">
                <Button asChild>
                  <Link to={authLink("/connexion", pathname)}>Se connecter</Link>
                </Button>
                <Button asChild variant="outline">
                  <Link to={authLink("/inscription", pathname)}>Créer un compte</Link>
                </Button>
              </div>
            )
          }
        />
      ) : contentError ? (
        <ErrorPanel title="Impossible de charger le contenu du cours" description="Vérifiez votre connexion puis réessayez." action={<Button variant="outline" onClick={reload}>Réessayer</Button>} />
      ) : content.length === 0 && outline.length === 0 ? (
        <EmptyState title="Aucun contenu disponible dans ce cours." />
      ) : (
        <ol className="space-y-3">
          {(outline.length > 0 ? outline : openOutline(content)).map((entry) => {
            const item = content.find((c) => c.id === entry.id);
            if (!item) return <LockedRow key={entry.id} lesson={entry} />;
            const i = entry.lesson_position - 1;
            const Icon = fileTypeIcon(item.file_type);
            return (
              <li key={item.id} className="bg-card flex flex-col gap-3 rounded-xl border p-4 sm:flex-row sm:items-center">
                <div className="flex min-w-0 flex-1 items-start gap-3">
                  <span className="bg-accent text-primary flex size-10 shrink-0 items-center justify-center rounded-lg">
                    <Icon className="size-5" aria-hidden />
                  </span>
                  <div className="min-w-0">
                    <p className="font-medium">
                      <span className="text-muted-foreground mr-1">{i + 1}.</span> {item.title}
                    </p>
                    <div className="mt-1 flex flex-wrap items-center gap-2">
                      <Badge variant="secondary">{fileTypeLabel(item.file_type)}</Badge>
                      {viewed.has(item.id) && (
                        <Badge variant="outline" className="border-blue-300 text-blue-700 dark:text-blue-300">
                          <EyeIcon aria-hidden /> Vu
                        </Badge>
                      )}
                      {item.file_size ? <span className="text-muted-foreground text-xs">{formatFileSize(item.file_size)}</span> : null}
                    </div>
                    {item.description && <p className="text-muted-foreground mt-1 line-clamp-2 text-sm">{item.description}</p>}
                  </div>
                </div>
                <div className="flex gap-2 sm:shrink-0">
                  {item.file_type === "video" && (
                    <Button asChild size="sm">
                      <Link to={`/video/${item.id}`}>
                        <PlayIcon aria-hidden /> Regarder
                      </Link>
                    </Button>
                  )}
                  {item.file_type === "image" && (
                    <Button asChild size="sm" variant="secondary">
                      <Link to={`/video/${item.id}`}>
                        <ImageIcon aria-hidden /> Voir l'image
                      </Link>
                    </Button>
                  )}
                  {item.file_path && (
                    <Button size="sm" variant="outline" onClick={() => void download(item)} disabled={busy}>
                      <DownloadIcon aria-hidden /> Télécharger
                    </Button>
                  )}
                </div>
              </li>
            );
          })}
        </ol>
      )}
      <ContactDialog open={contactOpen} onOpenChange={setContactOpen} courseTitle={course.title} email={user?.email} />
    </PageContainer>
  );
}

/** A lesson the schedule has not opened yet: its title and when it opens, nothing to open. */
function LockedRow({ lesson }: { lesson: OutlineLesson }) {
  return (
    <li className="flex items-start gap-3 rounded-xl border border-dashed p-4" data-testid="locked-lesson-row">
      <span className="bg-muted text-muted-foreground flex size-10 shrink-0 items-center justify-center rounded-lg">
        <LockIcon className="size-5" aria-hidden />
      </span>
      <div className="min-w-0">
        <p className="text-muted-foreground font-medium">
          <span className="mr-1">{lesson.lesson_position}.</span> {lesson.title}
        </p>
        <p className="text-muted-foreground mt-1 text-sm">{lockedLabel(lesson)}</p>
      </div>
    </li>
  );
}
