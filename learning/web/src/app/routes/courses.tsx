import * as React from "react";
import { Link } from "react-router-dom";
import { LogInIcon, RefreshCwIcon, VideoOffIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { Skeleton } from "@/components/ui/skeleton";
import { EmptyState, ErrorPanel, PageContainer } from "@/components/layout/page-states";
import { SearchInput } from "@/components/search-input";
import { useAuth } from "@/features/auth";
import { useVisibleCourses, useCourseProgress, CourseCard } from "@/features/courses";
import { ContactCard } from "@/features/contact";
import { matchesSearch } from "@/lib/format";
import { useDocumentTitle } from "@/lib/use-document-title";
import { useErrorToast } from "@/lib/use-error-toast";

const GRID = "grid grid-cols-2 gap-3 sm:gap-5 md:grid-cols-3 xl:grid-cols-4";

export default function Courses() {
  useDocumentTitle("Cours d'anglais");
  const { user, loading: authLoading } = useAuth();
  const userId = user?.id ?? null;
  const query = useVisibleCourses(userId, !authLoading);
  // The learner's progress per course (the database's rule); a card without a row shows none.
  const progress = useCourseProgress(userId, null, !authLoading);
  const [search, setSearch] = React.useState("");
  useErrorToast(query.error, "Impossible de charger les cours.");
  // A read after a failure shows the skeleton again; a refresh keeps the list while it reads.
  const status = query.isError && !query.isFetching ? "error" : query.data && !query.isError ? "ready" : "loading";
  const refreshing = status === "ready" && query.isFetching;
  const courses = query.data ?? [];

  const visible = courses.filter((c) => matchesSearch(c, search));

  return (
    <PageContainer>
      <div className="mb-8 flex flex-col gap-4 md:flex-row md:items-end md:justify-between">
        <div>
          <h1 className="text-3xl font-bold tracking-tight">Cours d'anglais</h1>
          <p className="text-muted-foreground mt-2">Des cours vidéo pour progresser pas à pas.</p>
        </div>
        <div className="flex w-full flex-col gap-2 sm:flex-row md:w-auto">
          <SearchInput value={search} onChange={setSearch} placeholder="Rechercher un cours..." />
          <Button variant="outline" onClick={() => void query.refetch()} disabled={refreshing || status === "loading"}>
            <RefreshCwIcon className={refreshing ? "animate-spin" : ""} aria-hidden /> Rafraîchir les cours
          </Button>
        </div>
      </div>

      {!authLoading && !user && (
        <div className="bg-accent/60 mb-8 flex flex-col items-start gap-4 rounded-xl border p-5 sm:flex-row sm:items-center">
          <LogInIcon className="text-primary size-6 shrink-0" aria-hidden />
          <div className="flex-1">
            <p className="font-semibold">Connexion requise</p>
            <p className="text-muted-foreground text-sm">Connectez-vous ou créez un compte pour suivre les cours. Seuls les cours gratuits sont affichés.</p>
          </div>
          <div className="flex gap-2">
            <Button asChild>
              <Link to="/connexion">Connexion</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to="/inscription">Inscription</Link>
            </Button>
          </div>
        </div>
      )}

      {status === "loading" && (
        <div className={GRID}>
          {Array.from({ length: 8 }, (_, i) => (
            <div key={i} className="overflow-hidden rounded-xl border">
              <Skeleton className="aspect-video w-full rounded-none" />
              <div className="space-y-2 p-4">
                <Skeleton className="h-4 w-3/4" />
                <Skeleton className="h-3 w-full" />
                <Skeleton className="h-8 w-full" />
              </div>
            </div>
          ))}
        </div>
      )}

      {status === "error" && (
        <ErrorPanel
          title="Impossible de charger les cours."
          description="Vérifiez votre connexion puis réessayez."
          action={
            <Button variant="outline" onClick={() => void query.refetch()}>
              Réessayer
            </Button>
          }
        />
      )}

      {status === "ready" && courses.length === 0 && <EmptyState icon={<VideoOffIcon className="size-10" aria-hidden />} title="Aucun cours disponible." />}
      {status === "ready" && courses.length > 0 && visible.length === 0 && <EmptyState title="Aucun cours ne correspond à votre recherche." />}
      {status === "ready" && visible.length > 0 && (
        <div className={GRID}>
          {visible.map((c) => (
            <CourseCard key={c.id} course={c} signedIn={!!user} progress={progress.data?.get(c.id)} />
          ))}
        </div>
      )}

      <ContactCard className="mt-12" title="Vous voulez accéder aux cours payants ?" />
    </PageContainer>
  );
}
