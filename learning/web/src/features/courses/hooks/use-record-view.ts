import * as React from "react";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { recordView } from "@/features/courses/api/courses";
import { progressKeys } from "@/features/courses/hooks/use-progress";

/** Cached screen data that lists the lessons the learner has viewed. */
type WithViewed = { viewed: Set<string> };

const hasViewed = (data: unknown): data is WithViewed => typeof data === "object" && data !== null && "viewed" in data && data.viewed instanceof Set;

/**
 * Records that the learner viewed a lesson (once; a failure is ignored). The view shows at once
 * in the cached course and lesson screens; the progress is read again from the server once the
 * view is stored (the database decides what counts).
 */
export function useRecordView(userId: string | null): (contentId: string) => void {
  const queryClient = useQueryClient();
  const { mutate } = useMutation({
    mutationFn: (contentId: string) => recordView(userId!, contentId),
    onMutate: (contentId) => {
      for (const root of ["course", "lesson"]) {
        queryClient.setQueriesData<unknown>({ queryKey: [root] }, (data: unknown) =>
          hasViewed(data) && !data.viewed.has(contentId) ? { ...data, viewed: new Set(data.viewed).add(contentId) } : data,
        );
      }
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: progressKeys.all }),
  });
  return React.useCallback(
    (contentId: string) => {
      if (userId) mutate(contentId);
    },
    [userId, mutate],
  );
}
