import * as React from "react";
import { useAuth } from "@/features/auth/hooks/auth-context";
import { completedContentIds, getCourse, hasCourseAccess, listCourseContent, viewedContentIds } from "@/features/courses/api/courses";
import { courseAccessLevel, type CourseAccessLevel } from "@/features/courses/lib/access";
import type { Course, CourseContent } from "@/types/db";

export type CourseStatus = "loading" | "loaded" | "error" | "not-found";

export interface CourseData {
  status: CourseStatus;
  course: Course | null;
  /** Course access (user_has_course_access, or admin). */
  hasAccess: boolean;
  /** full, lessons (granted one by one, no course access) or none. */
  accessLevel: CourseAccessLevel;
  /** With full access every lesson; with "lessons" only the granted ones (as the server lists them). */
  content: CourseContent[];
  contentError: string | null;
  completed: Set<string>;
  viewed: Set<string>;
  reload: () => void;
  markViewed: (id: string) => void;
}

/** The course, the learner's access, its content and progress (one screen's data). */
export function useCourse(courseId: string | undefined): CourseData {
  const { user, isAdmin, loading: authLoading } = useAuth();
  const userId = user?.id ?? null;
  const [status, setStatus] = React.useState<CourseStatus>("loading");
  const [course, setCourse] = React.useState<Course | null>(null);
  const [hasAccess, setHasAccess] = React.useState(false);
  const [accessLevel, setAccessLevel] = React.useState<CourseAccessLevel>("none");
  const [content, setContent] = React.useState<CourseContent[]>([]);
  const [contentError, setContentError] = React.useState<string | null>(null);
  const [completed, setCompleted] = React.useState<Set<string>>(new Set());
  const [viewed, setViewed] = React.useState<Set<string>>(new Set());
  const [nonce, setNonce] = React.useState(0);

  React.useEffect(() => {
    if (authLoading || !courseId) return;
    let alive = true;
    setStatus("loading");
    (async () => {
      let found: Course | null;
      try {
        found = await getCourse(courseId);
      } catch {
        if (alive) setStatus("error");
        return;
      }
      if (!alive) return;
      if (!found) {
        setStatus("not-found");
        return;
      }
      const access = userId ? isAdmin || (await hasCourseAccess(userId, found)) : false;
      let items: CourseContent[] = [];
      let itemsError: string | null = null;
      if (access || (!userId && found.visibility === "public")) {
        try {
          items = await listCourseContent(userId, found);
        } catch (e) {
          itemsError = e instanceof Error ? e.message : "Failed to load content";
        }
      } else if (userId) {
        // Without course access the server still lists the lessons granted one by one.
        items = await listCourseContent(userId, found).catch(() => []);
      }
      const level = userId ? courseAccessLevel(access, items.length) : "none";
      const [done, seen] = userId && level !== "none" ? await Promise.all([completedContentIds(userId, found.id).catch(() => new Set<string>()), viewedContentIds(userId).catch(() => new Set<string>())]) : [new Set<string>(), new Set<string>()];
      if (!alive) return;
      setCourse(found);
      setHasAccess(access);
      setAccessLevel(level);
      setContent(items);
      setContentError(itemsError);
      setCompleted(done);
      setViewed(seen);
      setStatus("loaded");
    })();
    return () => {
      alive = false;
    };
  }, [courseId, userId, isAdmin, authLoading, nonce]);

  const reload = React.useCallback(() => setNonce((n) => n + 1), []);
  const markViewed = React.useCallback((id: string) => setViewed((s) => (s.has(id) ? s : new Set(s).add(id))), []);
  return { status, course, hasAccess, accessLevel, content, contentError, completed, viewed, reload, markViewed };
}
