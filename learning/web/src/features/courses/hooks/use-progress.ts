import { useQuery } from "@tanstack/react-query";
import { getCourseProgress } from "@/features/courses/api/courses";

/** Query keys of progress reads: every one starts with "progress" (a recorded view or a grant invalidates them all). */
export const progressKeys = {
  all: ["progress"] as const,
  of: (userId: string, courseId: string | null) => ["progress", userId, courseId ?? "all"] as const,
};

/**
 * A learner's progress per course (the server's rule), by course id: one course, or the
 * courses where something is unlocked. Signed-in only; an admin may read anyone's.
 */
export function useCourseProgress(userId: string | null, courseId: string | null = null, enabled = true) {
  return useQuery({
    queryKey: progressKeys.of(userId ?? "", courseId),
    queryFn: () => getCourseProgress(userId!, courseId ?? undefined),
    enabled: enabled && !!userId,
    staleTime: 0, // a lesson may have been watched or unlocked since
  });
}
