import * as React from "react";
import { toast } from "sonner";
import { listAllCourses } from "@/features/admin/api/access";
import { deleteCourse } from "@/features/admin/api/courses";
import { errorText } from "@/features/admin/lib/errors";
import type { Course } from "@/types/db";

/** The admin course list with reload and a confirmed delete. */
export function useAdminCourses() {
  const [courses, setCourses] = React.useState<Course[] | null>(null);
  const [error, setError] = React.useState<string | null>(null);
  const reload = React.useCallback(async () => {
    try {
      setCourses(await listAllCourses());
      setError(null);
    } catch (e) {
      setError(errorText(e, "Impossible de charger les cours"));
      toast.error("Erreur", { description: "Impossible de charger les cours" });
    }
  }, []);
  React.useEffect(() => {
    void reload();
  }, [reload]);
  const remove = React.useCallback(
    async (course: Course) => {
      try {
        await deleteCourse(course);
        toast.success("Cours supprimé", { description: course.title });
        await reload();
      } catch (e) {
        toast.error("Erreur", { description: errorText(e, "Impossible de supprimer le cours.") });
      }
    },
    [reload],
  );
  return { courses, error, reload, remove };
}
