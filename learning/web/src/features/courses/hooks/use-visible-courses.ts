import { useQuery } from "@tanstack/react-query";
import { listVisibleCourses } from "@/features/courses/api/courses";

/** Query keys of the course lists: every one starts with "courses". */
export const courseKeys = {
  all: ["courses"] as const,
  visible: (userId: string | null) => ["courses", "visible", userId] as const,
};

/** The courses the user may see (public ones for a visitor); waits for `enabled` (the auth state known). */
export function useVisibleCourses(userId: string | null, enabled: boolean) {
  return useQuery({ queryKey: courseKeys.visible(userId), queryFn: () => listVisibleCourses(userId), enabled });
}
