import { Link } from "react-router-dom";
import { EyeIcon, PencilIcon, Trash2Icon } from "lucide-react";
import { Button } from "@/components/ui/button";
import { CourseCover, VisibilityBadge } from "@/features/courses";
import type { Course } from "@/types/db";

/** Cover, title, Public/Privé, description; 'Voir' for all, 'Éditer'/'Supprimer' for admins. */
export function AdminCourseCard({ course, isAdmin, onDelete }: { course: Course; isAdmin: boolean; onDelete?: (course: Course) => void }) {
  return (
    <article className="bg-card flex flex-col overflow-hidden rounded-xl border shadow-sm" data-testid="admin-course-card" data-title={course.title}>
      <CourseCover course={course} />
      <div className="flex flex-1 flex-col gap-2 p-4">
        <div className="flex items-start justify-between gap-2">
          <h3 className="line-clamp-2 font-semibold">{course.title}</h3>
          <VisibilityBadge visibility={course.visibility} wording="privacy" />
        </div>
        <p className="text-muted-foreground line-clamp-2 text-sm sm:line-clamp-3">{course.description || "Pas de description"}</p>
        <div className="mt-auto flex flex-wrap gap-2 pt-2">
          <Button asChild size="sm" variant="outline">
            <Link to={`/admin/courses/${course.id}`} aria-label={`Voir ${course.title}`}>
              <EyeIcon aria-hidden /> Voir
            </Link>
          </Button>
          {isAdmin && (
            <>
              <Button asChild size="sm" variant="outline">
                <Link to={`/admin/course/${course.id}`} aria-label={`Éditer ${course.title}`}>
                  <PencilIcon aria-hidden /> Éditer
                </Link>
              </Button>
              <Button size="sm" variant="destructive" onClick={() => onDelete?.(course)} aria-label={`Supprimer ${course.title}`}>
                <Trash2Icon aria-hidden /> Supprimer
              </Button>
            </>
          )}
        </div>
      </div>
    </article>
  );
}
