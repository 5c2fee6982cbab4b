import * as React from "react";
import { useQuery } from "@tanstack/react-query";
import { useAuth } from "@/features/auth";
import { completedContentIds, getCourse, getCourseOutline, hasCourseAccess, listCourseContent, openOutline, viewedContentIds } from "@/features/courses/api/courses";
import { courseAccessLevel, type CourseAccessLevel } from "@/features/courses/lib/access";
import type { OutlineLesson } from "@/features/courses/lib/unlock";
import type { Course, CourseContent } from "@/types/db";

export type CourseStatus = "loading" | "loaded" | "error" | "not-found";

/** What the course page reads: the course, the access, its lessons and the learner's progress. */
interface Loaded {
  course: Course | null;
  /** Course access (user_has_course_access, or admin). */
  hasAccess: boolean;
  /** full, lessons (granted one by one, no course access) or none. */
  accessLevel: CourseAccessLevel;
  /** The lessons the learner may open now, in full (the server lists only unlocked ones). */
  content: CourseContent[];
  /** Every lesson the learner may know of, locked ones with the date they open. */
  outline: OutlineLesson[];
  contentError: string | null;
  completed: Set<string>;
  viewed: Set<string>;
}

export interface CourseData extends Loaded {
  status: CourseStatus;
  reload: () => void;
}

async function loadCourse(courseId: string, userId: string | null, isAdmin: boolean): Promise<Loaded> {
  const course = await getCourse(courseId);
  const none = { hasAccess: false, accessLevel: "none" as const, content: [], outline: [], contentError: null, completed: new Set<string>(), viewed: new Set<string>() };
  if (!course) return { course, ...none };
  const access = userId ? isAdmin || (await hasCourseAccess(userId, course)) : false;
  let content: CourseContent[] = [];
  let contentError: string | null = null;
  if (access || (!userId && course.visibility === "public")) {
    try {
      content = await listCourseContent(userId, course);
    } catch (e) {
      contentError = e instanceof Error ? e.message : "Failed to load content";
    }
  } else if (userId) {
    // Without course access the server still lists the lessons granted one by one.
    content = await listCourseContent(userId, course).catch(() => []);
  }
  const accessLevel = userId ? courseAccessLevel(access, content.length) : "none";
  const listed = accessLevel !== "none" || (!userId && course.visibility === "public");
  const [outline, completed, viewed] = await Promise.all([
    listed && !contentError ? getCourseOutline(course.id).catch(() => openOutline(content)) : Promise.resolve([]),
    userId && accessLevel !== "none" ? completedContentIds(userId, course.id).catch(() => new Set<string>()) : Promise.resolve(new Set<string>()),
    userId && accessLevel !== "none" ? viewedContentIds(userId).catch(() => new Set<string>()) : Promise.resolve(new Set<string>()),
  ]);
  return { course, hasAccess: access, accessLevel, content, outline, contentError, completed, viewed };
}

/** The course, the learner's access, its lessons (open and locked) and progress: one screen's data. */
export function useCourse(courseId: string | undefined): CourseData {
  const { user, isAdmin, loading: authLoading } = useAuth();
  const userId = user?.id ?? null;
  const query = useQuery({
    queryKey: ["course", courseId, userId, isAdmin],
    queryFn: () => loadCourse(courseId!, userId, isAdmin),
    enabled: !authLoading && !!courseId,
    staleTime: 0, // a lesson may have opened since the last visit
  });
  const { refetch } = query;
  const reload = React.useCallback(() => void refetch(), [refetch]);

  const data = query.data;
  const status: CourseStatus =
    query.isFetching && (query.isError || !data) ? "loading" : query.isError ? "error" : !data ? "loading" : data.course ? "loaded" : "not-found";
  return {
    status,
    course: data?.course ?? null,
    hasAccess: data?.hasAccess ?? false,
    accessLevel: data?.accessLevel ?? "none",
    content: data?.content ?? [],
    outline: data?.outline ?? [],
    contentError: data?.contentError ?? null,
    completed: data?.completed ?? new Set(),
    // Views recorded on this screen show at once (useRecordView updates the cached course).
    viewed: data?.viewed ?? new Set(),
    reload,
  };
}
