import { useQuery } from "@tanstack/react-query";
import { getContentWithCourse, getCourseOutline, getLessonStatus, listCourseContent, openOutline, viewedContentIds } from "@/features/courses/api/courses";
import { lessonRefusal, type LessonRefusal } from "@/features/courses/lib/access";
import type { OutlineLesson } from "@/features/courses/lib/unlock";
import type { Course, CourseContent } from "@/types/db";

/** The lesson viewer's data: the lesson with its course's outline and the lessons watched, or why it is refused. */
export type LessonView =
  | { kind: "ready"; course: Course; content: CourseContent; lessons: CourseContent[]; outline: OutlineLesson[]; viewed: Set<string> }
  | ({ kind: "refused" } & LessonRefusal);

export const lessonKeys = {
  lesson: (contentId: string, userId: string) => ["lesson", contentId, userId] as const,
};

async function loadLesson(contentId: string, userId: string): Promise<LessonView> {
  // RLS returns the lesson only when it is open to this user (access, schedule, grant);
  // otherwise the server says whether it exists and when it opens.
  const item = await getContentWithCourse(contentId);
  if (!item || !item.courses) return { kind: "refused", ...lessonRefusal(await getLessonStatus(contentId)) };
  const { courses: course, ...content } = item;
  const [visible, outline, viewed] = await Promise.all([
    listCourseContent(userId, course).catch(() => null),
    getCourseOutline(course.id).catch(() => []),
    viewedContentIds(userId).catch(() => new Set<string>()),
  ]);
  const lessons = visible?.length ? visible : [content];
  return { kind: "ready", course, content, lessons, outline: outline.length ? outline : openOutline(lessons), viewed };
}

/** A lesson opened by its address, for a signed-in user (read again at each visit: it may have opened since). */
export function useLesson(contentId: string | undefined, userId: string | null) {
  return useQuery({
    queryKey: lessonKeys.lesson(contentId ?? "", userId ?? ""),
    queryFn: () => loadLesson(contentId!, userId!),
    enabled: !!contentId && !!userId,
    staleTime: 0,
  });
}
