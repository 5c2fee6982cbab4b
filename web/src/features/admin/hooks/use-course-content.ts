import * as React from "react";
import { toast } from "sonner";
import { getCourseById } from "@/features/admin/api/courses";
import { listContentInOrder } from "@/features/admin/api/access";
import { viewedContentIds } from "@/features/courses";
import type { Course, CourseContent } from "@/types/db";

export type CourseState = { status: "loading" } | { status: "not-found" } | { status: "error" } | { status: "loaded"; course: Course };

/** One course and its lessons in order (admin screens), with the admin's own views. */
export function useCourseContent(courseId: string | undefined, userId: string | null) {
  const [state, setState] = React.useState<CourseState>({ status: "loading" });
  const [items, setItems] = React.useState<CourseContent[]>([]);
  const [viewed, setViewed] = React.useState<Set<string>>(new Set());

  const reloadContent = React.useCallback(async () => {
    if (!courseId) return;
    try {
      setItems(await listContentInOrder(courseId));
      if (userId) setViewed(await viewedContentIds(userId).catch(() => new Set<string>()));
    } catch {
      toast.error("Erreur", { description: "Impossible de charger les données." });
    }
  }, [courseId, userId]);

  const reload = React.useCallback(async () => {
    if (!courseId) {
      setState({ status: "not-found" });
      return;
    }
    try {
      const course = await getCourseById(courseId);
      setState(course ? { status: "loaded", course } : { status: "not-found" });
      if (course) await reloadContent();
    } catch {
      setState({ status: "error" });
      toast.error("Erreur", { description: "Impossible de charger les cours" });
    }
  }, [courseId, reloadContent]);

  React.useEffect(() => {
    void reload();
  }, [reload]);

  return { state, items, viewed, reload, reloadContent, setCourse: (course: Course) => setState({ status: "loaded", course }) };
}
