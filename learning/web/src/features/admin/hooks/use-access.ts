import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { applyAccessWrite, listAllCourses, listBooksByTitle, loadAccessSummary, type AccessWrite } from "@/features/admin/api/access";
import { getProfile } from "@/features/admin/api/users";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import { lessonsQuery } from "@/features/admin/hooks/use-course-content";
import { useFailureToast } from "@/features/admin/hooks/use-failure-toast";
import type { CourseContent } from "@/types/db";

/** The access dialog's data: the user, every course and book, and what the user holds. */
export function useAccessData(userId: string) {
  const profile = useQuery({ queryKey: adminKeys.profile(userId), queryFn: () => getProfile(userId), staleTime: ADMIN_STALE_TIME });
  const courses = useQuery({ queryKey: adminKeys.courses, queryFn: listAllCourses, staleTime: ADMIN_STALE_TIME });
  const books = useQuery({ queryKey: adminKeys.books, queryFn: listBooksByTitle, staleTime: ADMIN_STALE_TIME });
  const summary = useQuery({ queryKey: adminKeys.accessOf(userId), queryFn: () => loadAccessSummary(userId), staleTime: ADMIN_STALE_TIME });
  const all = [profile, courses, books, summary];
  useFailureToast(all.find((q) => q.error)?.error ?? null, "Impossible de charger les données d'accès.", true);
  return {
    profile: profile.data ?? null,
    courses: courses.data ?? [],
    books: books.data ?? [],
    summary: summary.data ?? null,
    /** A first read is under way (the lists are not shown yet). */
    loading: [courses, books, summary].some((q) => q.isPending && q.isFetching),
    /** Any read is under way ('Actualiser' turns). */
    fetching: all.some((q) => q.isFetching),
    refetch: () => Promise.all(all.map((q) => q.refetch())),
  };
}

/** The lessons of the courses unfolded in the dialog, by course id ("loading" until read). */
export function useUnfoldedLessons(courseIds: string[]): Record<string, CourseContent[] | "loading"> {
  const results = useQueries({ queries: courseIds.map((id) => lessonsQuery(id)) });
  return Object.fromEntries(courseIds.map((id, i) => [id, results[i].data ?? "loading"]));
}

/** What a write is about, to disable its button while it runs. */
export const accessWriteKey = (write: AccessWrite): string => (write.target === "bulk" ? "bulk" : `${write.target}:${write.id}`);

/** Grants or revokes access; the access rows are read again before it settles, also after a partial failure. */
export function useAccessWrite(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (write: AccessWrite) => applyAccessWrite(userId, write),
    onSettled: () => queryClient.invalidateQueries({ queryKey: adminKeys.access }),
  });
}
