import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { getSchedule, previewUnlockCount, saveSchedule } from "@/features/admin/api/schedule";
import { ADMIN_STALE_TIME, adminKeys } from "@/features/admin/hooks/keys";
import type { ScheduleValues } from "@/features/admin/lib/schedule";

export interface PreviewArgs {
  values: ScheduleValues;
  days: number;
}

/** The course's active unlock schedule, null when it has none. */
export function useSchedule(courseId: string) {
  return useQuery({ queryKey: adminKeys.schedule(courseId), queryFn: () => getSchedule(courseId), staleTime: ADMIN_STALE_TIME });
}

/** Creates or updates the schedule; it is read again before the mutation settles. */
export function useSaveSchedule(courseId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (values: ScheduleValues) => saveSchedule(courseId, values),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminKeys.schedule(courseId) }),
  });
}

/**
 * How many of the course's lessons these values open after `days` days of access, counted by
 * the database (none asked while `args` is null). The previous count stays shown while the
 * next one is computed; a count never changes for the same values and lessons.
 */
export function useSchedulePreview(courseId: string, lessonCount: number, args: PreviewArgs | null) {
  return useQuery({
    queryKey: adminKeys.schedulePreview(courseId, lessonCount, args),
    queryFn: () => previewUnlockCount(courseId, args!.values, args!.days),
    enabled: args !== null,
    staleTime: Infinity,
    placeholderData: (previous) => previous,
  });
}
