import * as React from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { getCourseById } from "@/features/admin/api/courses";
import { listContentInOrder } from "@/features/admin/api/access";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import { useFailureToast } from "@/features/admin/hooks/use-failure-toast";
import { viewedContentIds } from "@/features/courses";
import type { Course, CourseContent } from "@/types/db";

export type CourseState = { status: "loading" } | { status: "not-found" } | { status: "error" } | { status: "loaded"; course: Course };

const NO_ITEMS: CourseContent[] = [];
const NO_VIEWS = new Set<string>();

/** A course's lessons in order (admin screens; also the access dialog's expanded courses). */
export function lessonsQuery(courseId: string) {
  return { queryKey: adminKeys.lessons(courseId), queryFn: () => listContentInOrder(courseId), staleTime: ADMIN_STALE_TIME };
}

/** One course and its lessons in order (admin screens), with the admin's own views. */
export function useCourseContent(courseId: string | undefined, userId: string | null) {
  const queryClient = useQueryClient();
  const id = courseId ?? "";
  const course = useQuery({ queryKey: adminKeys.course(id), queryFn: () => getCourseById(id), enabled: !!courseId, staleTime: ADMIN_STALE_TIME });
  const found = !!course.data;
  const lessons = useQuery({ ...lessonsQuery(id), enabled: found });
  // A failure to read the views only hides the "Vu" badges.
  const views = useQuery({
    queryKey: adminKeys.views(userId ?? ""),
    queryFn: () => viewedContentIds(userId!).catch(() => new Set<string>()),
    enabled: found && !!userId,
    staleTime: ADMIN_STALE_TIME,
  });
  useFailureToast(course.error, "Impossible de charger les cours");
  useFailureToast(lessons.error, "Impossible de charger les données.");

  const state: CourseState = !courseId
    ? { status: "not-found" }
    : course.data
      ? { status: "loaded", course: course.data }
      : course.isError
        ? { status: "error" }
        : course.isPending
          ? { status: "loading" }
          : { status: "not-found" };

  const reloadContent = React.useCallback(
    () => Promise.all([queryClient.invalidateQueries({ queryKey: adminKeys.lessons(id) }), queryClient.invalidateQueries({ queryKey: adminKeys.views(userId ?? "") })]),
    [queryClient, id, userId],
  );
  const reload = React.useCallback(
    () => Promise.all([queryClient.invalidateQueries({ queryKey: adminKeys.course(id) }), queryClient.invalidateQueries({ queryKey: adminKeys.views(userId ?? "") })]),
    [queryClient, id, userId],
  );
  return { state, items: lessons.data ?? NO_ITEMS, viewed: views.data ?? NO_VIEWS, reload, reloadContent };
}
