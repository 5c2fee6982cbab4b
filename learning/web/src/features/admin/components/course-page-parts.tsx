import type { ReactNode } from "react";
import { Link } from "react-router-dom";
import { ArrowLeftIcon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { ErrorPanel, PageContainer, PageSpinner } from "@/components/layout/page-states";
import type { CourseState } from "@/features/admin/hooks/use-course-content";
import type { Course } from "@/types/db";

export function BackButton({ to = "/admin/courses", label = "Retour aux cours" }: { to?: string; label?: string }) {
  return (
    <Button asChild variant="ghost" size="sm" className="-ml-2">
      <Link to={to}>
        <ArrowLeftIcon aria-hidden /> {label}
      </Link>
    </Button>
  );
}

/** Loading, 'Cours non trouvé', error, or the page for the loaded course. */
export function CourseStateView({ state, children }: { state: CourseState; children: (course: Course) => ReactNode }) {
  if (state.status === "loading") return <PageSpinner />;
  if (state.status !== "loaded")
    return (
      <PageContainer>
        <ErrorPanel title={state.status === "not-found" ? "Cours non trouvé" : "Impossible de charger les cours"} action={<BackButton />} />
      </PageContainer>
    );
  return <>{children(state.course)}</>;
}
