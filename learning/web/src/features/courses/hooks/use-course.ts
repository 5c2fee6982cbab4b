import * as React from "react";
import { useQuery } from "@tanstack/react-query";
import { useAuth } from "@/features/auth";
import { getCourse, getCourseOutline, getCourseSummary, hasCourseAccess, listCourseContent, openOutline, viewedContentIds, type CourseSummary } from "@/features/courses/api/courses";
import { courseAccessLevel, type CourseAccessLevel } from "@/features/courses/lib/access";
import type { OutlineLesson } from "@/features/courses/lib/unlock";
import type { Course, CourseContent } from "@/types/db";

export type CourseStatus = "loading" | "loaded" | "error" | "not-found";

/** The course's header: every caller who follows its link may read this much. */
export type CourseHeader = Pick<Course, "id" | "title" | "description" | "visibility" | "cover_url" | "created_at">;

/** What the course page reads: the course, the access, its lessons and the lessons watched. */
interface Loaded {
  course: CourseHeader | null;
  /**
   * The caller may read only the course's public summary (a visitor on a private course:
   * RLS hides the row, rpc get_course_summary gives title, description, cover, lesson count).
   */
  summary: CourseSummary | null;
  /** Course access (user_has_course_access, or admin). */
  hasAccess: boolean;
  /** full, lessons (granted one by one, no course access) or none. */
  accessLevel: CourseAccessLevel;
  /** The lessons the learner may open now, in full (the server lists only unlocked ones). */
  content: CourseContent[];
  /** Every lesson the learner may know of, locked ones with the date they open. */
  outline: OutlineLesson[];
  contentError: string | null;
  /** Lessons the learner has watched (content_views): each one is "terminée". */
  viewed: Set<string>;
}

export interface CourseData extends Loaded {
  status: CourseStatus;
  reload: () => void;
}

async function loadCourse(courseId: string, userId: string | null, isAdmin: boolean): Promise<Loaded> {
  const course = await getCourse(courseId);
  const none = { hasAccess: false, accessLevel: "none" as const, content: [], outline: [], contentError: null, viewed: new Set<string>() };
  if (!course) {
    // Not readable here (a private course, for a visitor): its public summary, or "not found".
    const summary = await getCourseSummary(courseId);
    return { course: summary, summary, ...none };
  }
  const access = userId ? isAdmin || (await hasCourseAccess(userId, course)) : false;
  let content: CourseContent[] = [];
  let contentError: string | null = null;
  if (access || (!userId && course.visibility === "public")) {
    try {
      content = await listCourseContent(userId, course);
    } catch (e) {
      contentError = e instanceof Error ? e.message : "Impossible de charger le contenu du cours.";
    }
  } else if (userId) {
    // Without course access the server still lists the lessons granted one by one.
    content = await listCourseContent(userId, course).catch(() => []);
  }
  const accessLevel = userId ? courseAccessLevel(access, content.length) : "none";
  const listed = accessLevel !== "none" || (!userId && course.visibility === "public");
  const [outline, viewed] = await Promise.all([
    listed && !contentError ? getCourseOutline(course.id).catch(() => openOutline(content)) : Promise.resolve([]),
    userId && accessLevel !== "none" ? viewedContentIds(userId).catch(() => new Set<string>()) : Promise.resolve(new Set<string>()),
  ]);
  return { course, summary: null, hasAccess: access, accessLevel, content, outline, contentError, viewed };
}

/** The course, the learner's access, its lessons (open and locked) and the lessons watched: one screen's data (progress: useCourseProgress). */
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
    summary: data?.summary ?? null,
    hasAccess: data?.hasAccess ?? false,
    accessLevel: data?.accessLevel ?? "none",
    content: data?.content ?? [],
    outline: data?.outline ?? [],
    contentError: data?.contentError ?? null,
    // Views recorded on this screen show at once (useRecordView updates the cached course).
    viewed: data?.viewed ?? new Set(),
    reload,
  };
}
