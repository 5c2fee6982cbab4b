import { useMutation, useQueryClient } from "@tanstack/react-query";
import { addContent, deleteContent, updateContent, type NewContent } from "@/features/admin/api/courses";
import { contentObjectPath } from "@/features/admin/lib/content-file";
import { adminKeys } from "@/features/admin/hooks/keys";
import type { ResumableOptions } from "@/lib/resumable-upload";
import type { CourseContent } from "@/types/db";

// Each write reads the course's cached screens again (admin lessons, learner outline) before it settles.

/** Adds a lesson after the existing ones (its file stored under the course's folder, its progress reported). */
export function useAddContent(courseId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ input, existing, progress }: { input: Omit<NewContent, "courseId">; existing: CourseContent[]; progress?: ResumableOptions }) =>
      addContent({ ...input, courseId }, existing, (name) => contentObjectPath(courseId, name), progress),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.courseScreens(courseId) }),
  });
}

/** Saves a lesson's title and description. */
export function useUpdateContent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ item, title, description }: { item: CourseContent; title: string; description: string }) => updateContent(item.id, title, description),
    onSuccess: (_data, { item }) => queryClient.invalidateQueries({ queryKey: adminKeys.courseScreens(item.course_id) }),
  });
}

/** Deletes a lesson and its stored file. */
export function useDeleteContent() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (item: CourseContent) => deleteContent(item.id),
    onSuccess: (_data, item) => queryClient.invalidateQueries({ queryKey: adminKeys.courseScreens(item.course_id) }),
  });
}
