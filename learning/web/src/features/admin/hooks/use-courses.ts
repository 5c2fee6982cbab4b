import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { courseKeys } from "@/features/courses";
import { listAllCourses } from "@/features/admin/api/access";
import { createCourse, deleteCourse, updateCourse, type CourseInput } from "@/features/admin/api/courses";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import { useFailureToast } from "@/features/admin/hooks/use-failure-toast";
import { errorText } from "@/features/admin/lib/errors";
import type { Course } from "@/types/db";

/** Every course, newest first; a failed read says so in a toast (the list keeps its spinner). */
export function useAdminCourses() {
  const query = useQuery({ queryKey: adminKeys.courses, queryFn: listAllCourses, staleTime: ADMIN_STALE_TIME });
  useFailureToast(query.error, "Impossible de charger les cours");
  return query;
}

/**
 * Creates a course (no `course`) or updates it. The saved row replaces the cached one at once,
 * and the course lists and screens are read again before the mutation settles.
 */
export function useSaveCourse(course?: Course) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CourseInput) => (course ? updateCourse(course, input) : createCourse(input)),
    onSuccess: ({ course: saved }) => {
      queryClient.setQueryData(adminKeys.course(saved.id), saved);
      return Promise.all([
        queryClient.invalidateQueries({ queryKey: courseKeys.all }),
        queryClient.invalidateQueries({ queryKey: adminKeys.courseScreens(saved.id) }),
      ]);
    },
  });
}

/** Deletes a course with its lessons' files and cover; the course lists and access rows are read again before it settles. */
export function useDeleteCourse() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (course: Course) => deleteCourse(course),
    onSuccess: (_data, course) => {
      queryClient.removeQueries({ queryKey: adminKeys.courseScreens(course.id) });
      // Its access rows went with it (the users table's dot).
      return Promise.all([queryClient.invalidateQueries({ queryKey: courseKeys.all }), queryClient.invalidateQueries({ queryKey: adminKeys.access })]);
    },
  });
}

/** The confirmed delete of the course lists: the outcome is said in a toast. */
export function useCourseRemoval(): (course: Course) => Promise<void> {
  const { mutateAsync } = useDeleteCourse();
  return async (course) => {
    try {
      await mutateAsync(course);
      toast.success("Cours supprimé", { description: course.title });
    } catch (e) {
      toast.error("Erreur", { description: errorText(e, "Impossible de supprimer le cours.") });
    }
  };
}
